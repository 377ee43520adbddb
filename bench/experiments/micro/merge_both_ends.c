/* bench/experiments/micro/merge_both_ends.c - one thread merges k sorted runs of random u64 (len records each, cut in two halves merged apart) with the native loser tree of src/losertree.c: one tree at a time (one), two independent merges interleaved in one loop (two interleaved), one merge from both ends at once (front+back: a second tree on the complemented tails, each half of the output), and two interleaved with the loser stored as t ^ c ^ min(t, c) (two xor-trick); outputs compared. bench/results/cpu-merge-both-ends-2026-11-30.md. Build: cc -O3 merge_both_ends.c; run: ./a.out K LEN [MOD [ONES]] (keys % MOD; every 7th all ones) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef unsigned __int128 W;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static uint64_t rng=88172645463325252ull; static uint64_t xr(void){rng^=rng<<13;rng^=rng>>7;rng^=rng<<17;return rng;}
static int cmpu(const void*a,const void*b){uint64_t x=*(const uint64_t*)a,y=*(const uint64_t*)b;return x<y?-1:x>y;}
typedef struct { const uint64_t *p; size_t n; } rg;
#define AHEAD 64
static void merge1(rg *r, int k, uint64_t *out, size_t total){
  int m=1; while(m<k) m<<=1; W tree[64], w[128]; const uint64_t *p[64]; size_t left[64];
  for(int i=0;i<m;i++){ p[i]= i<k? r[i].p:0; left[i]= i<k? r[i].n:0; w[m+i]= left[i]? (W)p[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i); }
  for(int i=m-1;i>=1;i--){ W a=w[2*i],b=w[2*i+1]; w[i]=a<b?a:b; tree[i]=a<b?b:a; }
  W c=w[1]; uint64_t *o=out,*end=out+total;
  while(o<end){ int i=(int)(uint32_t)c; *o++=*p[i]; p[i]++; __builtin_prefetch(p[i]+AHEAD);
    c= --left[i]? (W)p[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i);
    for(int node=(m+i)>>1; node>=1; node>>=1){ W t=tree[node]; int lt=t<c; tree[node]=lt?c:t; c=lt?t:c; } }
}
/* two independent merges interleaved */
static void merge2(rg *ra, rg *rb, int k, uint64_t *oa, size_t ta, uint64_t *ob, size_t tb, int xr){
  int m=1; while(m<k) m<<=1; W TA[64], TB[64], w[128]; const uint64_t *pa[64],*pb[64]; size_t la[64],lb[64];
  for(int i=0;i<m;i++){ pa[i]= i<k? ra[i].p:0; la[i]= i<k? ra[i].n:0; w[m+i]= la[i]? (W)pa[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i); }
  for(int i=m-1;i>=1;i--){ W a=w[2*i],b=w[2*i+1]; w[i]=a<b?a:b; TA[i]=a<b?b:a; } W ca=w[1];
  for(int i=0;i<m;i++){ pb[i]= i<k? rb[i].p:0; lb[i]= i<k? rb[i].n:0; w[m+i]= lb[i]? (W)pb[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i); }
  for(int i=m-1;i>=1;i--){ W a=w[2*i],b=w[2*i+1]; w[i]=a<b?a:b; TB[i]=a<b?b:a; } W cb=w[1];
  size_t n = ta<tb?ta:tb; uint64_t *ea=oa+n;
  while(oa<ea){ int i=(int)(uint32_t)ca, j=(int)(uint32_t)cb;
    *oa++=*pa[i]; pa[i]++; __builtin_prefetch(pa[i]+AHEAD); *ob++=*pb[j]; pb[j]++; __builtin_prefetch(pb[j]+AHEAD);
    ca= --la[i]? (W)pa[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i);
    cb= --lb[j]? (W)pb[j][0]<<64|(W)j : ~(W)0<<64|(W)(m+j);
    int na=(m+i)>>1, nb=(m+j)>>1;
    if(xr) while(na>=1){ W t=TA[na]; W mn=t<ca?t:ca; TA[na]=t^ca^mn; ca=mn; na>>=1;
                  W u=TB[nb]; W mo=u<cb?u:cb; TB[nb]=u^cb^mo; cb=mo; nb>>=1; }
    else while(na>=1){ W t=TA[na]; int lt=t<ca; TA[na]=lt?ca:t; ca=lt?t:ca; na>>=1;
                  W u=TB[nb]; int lu=u<cb; TB[nb]=lu?cb:u; cb=lu?u:cb; nb>>=1; } }
  /* tails: one of them is done; finish the other one record at a time */
  while(oa<ea+(ta-n)){ int i=(int)(uint32_t)ca; *oa++=*pa[i]; pa[i]++; ca= --la[i]? (W)pa[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i);
    for(int node=(m+i)>>1; node>=1; node>>=1){ W t=TA[node]; int lt=t<ca; TA[node]=lt?ca:t; ca=lt?t:ca; } }
  uint64_t *eb=ob+(tb-n);
  while(ob<eb){ int j=(int)(uint32_t)cb; *ob++=*pb[j]; pb[j]++; cb= --lb[j]? (W)pb[j][0]<<64|(W)j : ~(W)0<<64|(W)(m+j);
    for(int node=(m+j)>>1; node>=1; node>>=1){ W u=TB[node]; int lu=u<cb; TB[node]=lu?cb:u; cb=lu?u:cb; } }
}



/* one merge from both ends at once: a min-tree from the front, a min-tree on complemented words from the back (higher run first among equal keys) */
static void mergefb(rg *r, int k, uint64_t *out, size_t total){
  int m=1; while(m<k) m<<=1; W TF[64], TB[64], w[128]; const uint64_t *pf[64],*pb[64]; size_t lf[64],lb[64];
  for(int i=0;i<m;i++){ pf[i]= i<k? r[i].p:0; lf[i]= i<k? r[i].n:0; w[m+i]= lf[i]? (W)pf[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i); }
  for(int i=m-1;i>=1;i--){ W a=w[2*i],b=w[2*i+1]; w[i]=a<b?a:b; TF[i]=a<b?b:a; } W cf=w[1];
  for(int i=0;i<m;i++){ pb[i]= i<k? r[i].p+r[i].n-1:0; lb[i]= i<k? r[i].n:0; w[m+i]= lb[i]? (W)(~pb[i][0])<<64|(W)(m-1-i) : ~(W)0<<64|(W)(m+i); }
  for(int i=m-1;i>=1;i--){ W a=w[2*i],b=w[2*i+1]; w[i]=a<b?a:b; TB[i]=a<b?b:a; } W cb=w[1];
  size_t hf=total/2; uint64_t *of=out, *ef=out+hf, *ob=out+total-1;
  while(of<ef){ int i=(int)(uint32_t)cf, jj=(int)(uint32_t)cb, j=m-1-jj;
    *of++=*pf[i]; pf[i]++; __builtin_prefetch(pf[i]+AHEAD); *ob--=*pb[j]; pb[j]--; __builtin_prefetch(pb[j]-AHEAD);
    cf= --lf[i]? (W)pf[i][0]<<64|(W)i : ~(W)0<<64|(W)(m+i);
    cb= --lb[j]? (W)(~pb[j][0])<<64|(W)jj : ~(W)0<<64|(W)(m+jj);
    int na=(m+i)>>1, nb=(m+j)>>1;
    while(na>=1){ W t=TF[na]; W mn=t<cf?t:cf; TF[na]=t^cf^mn; cf=mn; na>>=1;
                  W u=TB[nb]; W mo=u<cb?u:cb; TB[nb]=u^cb^mo; cb=mo; nb>>=1; } }
  if(total&1){ int jj=(int)(uint32_t)cb, j=m-1-jj; *ob=*pb[j]; }
}
int main(int argc,char**argv){ int k=atoi(argv[1]); size_t len=(size_t)atol(argv[2]); size_t N=(size_t)k*len;
  uint64_t *d=malloc(N*8), *o1=malloc(N*8), *o2=malloc(N*8);
  for(size_t i=0;i<N;i++){ d[i]=xr(); if(argc>3) d[i]%=(uint64_t)atol(argv[3]); if(argc>4 && i%7==0) d[i]=~0ull; } for(int r=0;r<k;r++) qsort(d+r*len,len,8,cmpu);
  memset(o1,0,N*8); memset(o2,0,N*8);
  /* problem: split each run at its middle value-wise: use half the runs' ranges: A = first half of each run, B = second half (independent merges of the same sizes) */
  rg A[64],B[64],C[64]; for(int r=0;r<k;r++){ A[r]=(rg){d+r*len,len/2}; B[r]=(rg){d+r*len+len/2,len-len/2}; }
  double best1=1e9,best2=1e9,best3=1e9,best4=1e9;
  for(int rep=0;rep<5;rep++){
    for(int r=0;r<k;r++){ A[r]=(rg){d+r*len,len/2}; C[r]=(rg){d+r*len+len/2,len-len/2}; }
    double t=now(); merge1(A,k,o1,(len/2)*k); merge1(C,k,o1+(len/2)*k,(len-len/2)*k); double t1=now()-t; if(t1<best1)best1=t1;
    for(int r=0;r<k;r++){ A[r]=(rg){d+r*len,len/2}; B[r]=(rg){d+r*len+len/2,len-len/2}; }
    t=now(); merge2(A,B,k,o2,(len/2)*k,o2+(len/2)*k,(len-len/2)*k,0); double t2=now()-t; if(t2<best2)best2=t2;
    if(memcmp(o1,o2,N*8)){printf("MISMATCH\n");return 1;}
    for(int r=0;r<k;r++){ A[r]=(rg){d+r*len,len/2}; C[r]=(rg){d+r*len+len/2,len-len/2}; }
    t=now(); mergefb(A,k,o2,(len/2)*k); mergefb(C,k,o2+(len/2)*k,(len-len/2)*k); t1=now()-t; if(t1<best3)best3=t1;
    if(memcmp(o1,o2,N*8)){printf("MISMATCH fb\n");return 1;}
    for(int r=0;r<k;r++){ A[r]=(rg){d+r*len,len/2}; B[r]=(rg){d+r*len+len/2,len-len/2}; }
    t=now(); merge2(A,B,k,o2,(len/2)*k,o2+(len/2)*k,(len-len/2)*k,1); t2=now()-t; if(t2<best4)best4=t2;
    if(memcmp(o1,o2,N*8)){printf("MISMATCH k2\n");return 1;}
  }
  printf("k=%d: one %.2f, two interleaved %.2f, front+back %.2f, two xor-trick %.2f ns/rec\n",k,best1/N*1e9,best2/N*1e9,best3/N*1e9,best4/N*1e9);
}
