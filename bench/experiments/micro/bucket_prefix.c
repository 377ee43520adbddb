/* bench/experiments/micro/bucket_prefix.c - one thread sorts nb cold buckets of 2^k random u64 keys (53 bits below an 11-bit partition) by 11-bit LSD passes on every bit (cpusort_native_par's way) and by two LSD passes on the top 22 differing bits then insertion within equal prefixes (cpusort_native_bucket's way, its weak-digit fallback included): bench/results/h200-bucket-prefix-2026-11-30.md. Build: cc -O2 bucket_prefix.c; run: ./a.out 16 256 [DIST] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
/* current: LSD 11-bit digits on low `bits`, skip constant digits */
static uint64_t *lsd(uint64_t *a, uint64_t *b, size_t n, int bits){
  int passes=(bits+10)/11, dw=(bits+passes-1)/passes; uint64_t mask=(1ull<<dw)-1;
  static uint32_t h[6][2048]; memset(h,0,sizeof h);
  for(size_t i=0;i<n;i++){uint64_t v=a[i]; for(int p=0;p<passes;p++) h[p][(v>>(p*dw))&mask]++;}
  for(int p=0;p<passes;p++){ uint32_t s=0,most=0; for(int d=0;d<(1<<dw);d++){uint32_t c=h[p][d]; if(c>most)most=c; h[p][d]=s; s+=c;} if(most==n) continue;
    int sh=p*dw; for(size_t i=0;i<n;i++){uint64_t v=a[i]; b[h[p][(v>>sh)&mask]++]=v;} uint64_t*t=a;a=b;b=t;}
  return a;
}
static inline int clog2(size_t n){int l=0;while(((size_t)1<<l)<n)l++;return l;}
static void ins(uint64_t *v,size_t n){for(size_t i=1;i<n;i++){uint64_t x=v[i];size_t j=i;for(;j>0&&v[j-1]>x;j--)v[j]=v[j-1];v[j]=x;}}
/* new: sort on the top T bits that differ, then equal prefixes fixed */
static uint64_t *pre(uint64_t *x, uint64_t *y, size_t m){
  if(m<=32){ins(x,m);return x;}
  uint64_t f=x[0],d=0; for(size_t i=0;i<m;i++) d|=x[i]^f; if(!d) return x;
  int hb=64-__builtin_clzll(d);
  int db=clog2(m)-3; if(db>11)db=11; if(db<4)db=4;
  int T=hb<2*db?hb:2*db; int lo=hb-T; int w1=T/2, w0=T-w1; /* low digit w0 bits at lo, high digit w1 at lo+w0 */
  uint32_t c0[2048],c1[2048]; memset(c0,0,4u<<w0); memset(c1,0,4u<<w1);
  uint64_t m0=(1ull<<w0)-1,m1=(1ull<<w1)-1; int s0=lo,s1=lo+w0;
  if(w1==0){ for(size_t i=0;i<m;i++) c0[(x[i]>>s0)&m0]++; uint32_t s=0; for(int e=0;e<(1<<w0);e++){uint32_t c=c0[e];c0[e]=s;s+=c;}
    for(size_t i=0;i<m;i++){uint64_t v=x[i]; y[c0[(v>>s0)&m0]++]=v;} uint64_t*t=x;x=y;y=t; }
  else { for(size_t i=0;i<m;i++){uint64_t v=x[i]; c0[(v>>s0)&m0]++; c1[(v>>s1)&m1]++;}
    size_t ne0=0,ne1=0; for(int e=0;e<(1<<w0);e++) ne0+=c0[e]!=0; for(int e=0;e<(1<<w1);e++) ne1+=c1[e]!=0;
    size_t l0=(1u<<w0)<m?(1u<<w0):m, l1=(1u<<w1)<m?(1u<<w1):m;
    if(ne0*16<l0 || ne1*16<l1) return lsd(x,y,m,hb);
    uint32_t s=0; for(int e=0;e<(1<<w0);e++){uint32_t c=c0[e];c0[e]=s;s+=c;} s=0; for(int e=0;e<(1<<w1);e++){uint32_t c=c1[e];c1[e]=s;s+=c;}
    for(size_t i=0;i<m;i++){uint64_t v=x[i]; y[c0[(v>>s0)&m0]++]=v;}
    for(size_t i=0;i<m;i++){uint64_t v=y[i]; x[c1[(v>>s1)&m1]++]=v;} }
  if(lo==0) return x;
  size_t g0=0; uint64_t p0=x[0]>>lo;
  for(size_t i=1;i<=m;i++){ uint64_t p = i<m? x[i]>>lo : 0; if(i==m || p!=p0){ size_t len=i-g0; if(len>1){ if(len<=32) ins(x+g0,len); else { uint64_t*r=pre(x+g0,y+g0,len); if(r!=x+g0) memcpy(x+g0,r,len*8);} } g0=i; p0=p; } }
  return x;
}
static uint64_t rng=88172645463325252ull; static uint64_t xr(void){rng^=rng<<13;rng^=rng>>7;rng^=rng<<17;return rng;}
int main(int argc,char**argv){ /* argv: log2 bucket size, buckets, distribution (0 uniform, 1 16-bit range, 2 bits 40-52 and 0-7, 3 bits 30-52, 4 five top values, 5 x % 1000, 6 a third equal 7) */
  size_t m=(size_t)1<<atoi(argv[1]); size_t nb=(size_t)atoi(argv[2]); int kind=argc>3?atoi(argv[3]):0;
  uint64_t *A=malloc(m*8*nb),*Bf=malloc(m*8*nb),*A2=malloc(m*8*nb),*B2=malloc(m*8*nb);
  for(size_t i=0;i<m*nb;i++){ uint64_t v=xr()>>11; if(kind==1) v&=0xffff; if(kind==2) v=(v&0xff)|((v>>40)<<40); if(kind==3) v=(v>>30)<<30;
    if(kind==4) v=((v%5)<<40)|(v>>44); if(kind==5) v=xr()%1000; if(kind==6) v=(v%3)? v : 7; A[i]=v; }
  memcpy(A2,A,m*8*nb); memset(Bf,0,m*8*nb); memset(B2,0,m*8*nb);
  double t=now(); for(size_t b=0;b<nb;b++) lsd(A+b*m,Bf+b*m,m,53); double tl=now()-t;
  t=now(); for(size_t b=0;b<nb;b++) pre(A2+b*m,B2+b*m,m); double tp=now()-t;
  for(size_t b=0;b<nb;b++){ uint64_t *x=A+b*m, *y=A2+b*m; /* results: in A or Bf, A2 or B2 */ (void)x; (void)y; }
  printf("%zu cold buckets of 2^%s, dist %d: LSD %.2f ns a key, prefix %.2f ns a key\n",nb,argv[1],kind,tl/nb/m*1e9,tp/nb/m*1e9); }
