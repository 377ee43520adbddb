/*
 * order_check.h - are neighbouring records in order? The comparisons of
 * -c (check.c) and --verify (verify.c): the records' keys as native
 * integers where the layout allows (keys_native_init, keys_word_init: one
 * comparison of two words a pair), else keys_compare.
 */
#ifndef GPUSORT_ORDER_CHECK_H
#define GPUSORT_ORDER_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "keys.h"

enum { ORDER_CMP_KEYS, ORDER_CMP_NATIVE32, ORDER_CMP_NATIVE64, ORDER_CMP_WORD };

typedef struct order_check {
	const keys_spec *s;
	const uint8_t *p;       /* record 0 of the records checked: set by the caller */
	size_t R;               /* bytes a record */
	int strict;             /* -u: a record equal to the one before is out of order too */
	int how;                /* ORDER_CMP_* */
	keys_native nat;
	keys_word word;
} order_check;

/* m for records of s (p left NULL); strict: ties count as disorder. */
void order_check_init(order_check *m, const keys_spec *s, int strict);

/*
 * The first record in [i, hi) (records of m->R bytes from m->p, i >= 1)
 * that goes before the one above it (or, strict, ties it), or SIZE_MAX.
 */
size_t order_check_first(const order_check *m, size_t i, size_t hi);

/* 1 when record b goes before record a (strict: or ties it), else 0. */
int order_check_pair(const order_check *m, const uint8_t *a, const uint8_t *b);

#endif
