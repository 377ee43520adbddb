/* bench/experiments/micro/spill_punch.c - DIR GIB MODE(none|punch) WINDOW_MIB [OUT]: write an unlinked spill-like file of GIB GiB, read it back in windows (each written to OUT, as a merge would; in MODE punch each read window then freed with fallocate PUNCH_HOLE), close it; prints the times. bench/results/h200-spill-punch-2026-11-30.md. Build: cc -O2 spill_punch.c */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c, char **v){
  const char *dir=v[1]; long gib=atol(v[2]); int punch=!strcmp(v[3],"punch"); size_t win=(size_t)atol(v[4])<<20;
  char path[4096]; snprintf(path,sizeof path,"%s/pt.XXXXXX",dir); int fd=mkstemp(path); unlink(path);
  size_t blk=64<<20; char *b=malloc(blk); for(size_t i=0;i<blk;i++) b[i]=(char)(i*7+1);
  double t0=now(); off_t tot=(off_t)gib<<30;
  for(off_t o=0;o<tot;o+=blk) if(write(fd,b,blk)!=(ssize_t)blk){perror("write");return 1;}
  double t1=now(); char *r=malloc(win); double ps=0; double tr=0, tw=0;
  int ofd = c > 5 ? open(v[5], O_WRONLY|O_CREAT|O_TRUNC, 0644) : -1;
  for(off_t o=0;o<tot;o+=win){ double a=now(); if(pread(fd,r,win,o)!=(ssize_t)win){perror("read");return 1;} tr+=now()-a;
    if(ofd>=0){ double a=now(); if(write(ofd,r,win)!=(ssize_t)win){perror("owrite");return 1;} tw+=now()-a; }
    if(punch){ double q=now(); if(fallocate(fd,FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE,o,win)){perror("punch");return 1;} ps+=now()-q; } }
  double t2=now(); close(fd); double t3=now();
  if(ofd>=0){ double a=now(); close(ofd); unlink(v[5]); printf("  output closed and removed %.2f s; output writes %.2f s\n", now()-a, tw); }
  printf("%s %ld GiB window %zu MiB: write %.2f s, read %.2f s (pread %.2f, punch %.2f), close %.2f s, total %.2f s\n", v[3], gib, win>>20, t1-t0, t2-t1, tr, ps, t3-t2, t3-t0);
  return 0; }
