/*
 * text_groups.h - which runs a text merge pass merges together, when
 * there are more than the fan-in: gpusort's groups, which merge the fewest
 * bytes again, and sort(1)'s (sort.c's merge()), which -m of inputs that
 * may be out of order follows, the order of such a merge's lines
 * depending on which inputs go together.
 */
#ifndef GPUSORT_TEXT_GROUPS_H
#define GPUSORT_TEXT_GROUPS_H

/*
 * gpusort's group: how many items, from item i of a pass over n items
 * merged at most F at a time (F >= 2), with `excess` of them over the
 * fan-in (n - F, plus a source that joins the last merge), one group
 * merges: only the first few when that is enough (17 runs, 16 at once:
 * the first 2), else F at a time. 1 is an item only moved.
 */
int text_group_size(int F, int excess, int n, int i);

/*
 * sort(1)'s group from item i of n, F at a time: groups of F while F are
 * left, then, when the rest would not fit beside the merged ones in the
 * next pass, the fewest that make them fit; the rest one by one.
 */
int text_group_size_gnu(int F, int n, int i);

/* 1 when the two groupings are the same in every pass of n items merged F
 * at a time (no source joining the last merge), else 0. */
int text_groups_same(int F, int n);

#endif
