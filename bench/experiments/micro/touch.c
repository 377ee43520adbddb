/* bench/experiments/micro/touch.c - what first-touching and unmapping 1 GiB costs, 4 KiB pages against 2 MiB pages (MADV_HUGEPAGE), on N threads: bench/results/cpu-native-2026-11-22.md. Build: cc -O2 -pthread touch.c; run: ./a.out THREADS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <pthread.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static size_t SZ=(size_t)1<<30; static char *P; static int NT;
static void *th(void *a){long t=(long)a; size_t lo=SZ*t/NT, hi=SZ*(t+1)/NT; for(size_t i=lo;i<hi;i+=4096)P[i]=1; return 0;}
static double touch(char *p,int nt){P=p;NT=nt;pthread_t T[64];double t0=now();for(long i=0;i<nt;i++)pthread_create(&T[i],0,th,(void*)i);for(int i=0;i<nt;i++)pthread_join(T[i],0);return now()-t0;}
int main(int c,char**v){int nt=atoi(v[1]);
 for(int mode=0;mode<3;mode++){
  char *p=mmap(0,SZ,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|(mode==2?MAP_POPULATE:0),-1,0);

  if(mode==1)madvise(p,SZ,MADV_HUGEPAGE);
  double tt=touch(p,nt);
  double t1=now(); munmap(p,SZ); double fr=now()-t1;
  printf("mode %s threads %d: touch %.3f s, munmap %.3f s\n",mode==0?"4k":mode==1?"thp":"populate",nt,tt,fr);}
}
