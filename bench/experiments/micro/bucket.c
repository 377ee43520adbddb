/* bench/experiments/micro/bucket.c - native LSD radix sort of cold 512 KiB buckets (1 GiB in all) by T threads, digit width and bucket size swept, as cpustream sorts its buckets: bench/results/cpu-native-2026-11-22.md. Build: cc -O3 -pthread bucket.c; run: ./a.out THREADS 8|4 DIGIT_BITS [BUCKET_KiB] */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int DIG;
#define RADIX(T, NAME) static T *NAME(T *a, T *b, size_t n, int bits) { \
 int passes = (bits + DIG - 1) / DIG; int dw = (bits + passes - 1) / passes; const T mask = ((T)1 << dw) - 1; \
 static __thread uint32_t h[8][1u << 12]; memset(h, 0, sizeof h[0] * passes); \
 for (size_t i = 0; i < n; i++) { T v = a[i]; for (int p = 0; p < passes; p++) h[p][(v >> (p * dw)) & mask]++; } \
 T *src = a, *dst = b; for (int p = 0; p < passes; p++) { uint32_t *c = h[p], sum = 0; \
  for (uint32_t d = 0; d <= mask; d++) { uint32_t k = c[d]; c[d] = sum; sum += k; } \
  const int sh = p * dw; for (size_t i = 0; i < n; i++) { T v = src[i]; dst[c[(v >> sh) & mask]++] = v; } \
  T *x = src; src = dst; dst = x; } return src; }
RADIX(uint64_t, r64) RADIX(uint32_t, r32)
static size_t M, NB; static int W, BITS; static uint8_t *A, *B; static atomic_size_t next; static double tsum[64];
static void *th(void *arg){ long t=(long)arg; double s=0; for(;;){ size_t j=atomic_fetch_add(&next,1); if(j>=NB) break; double t0=now();
  if(W==8) r64((uint64_t*)A+j*M,(uint64_t*)B+j*M,M,BITS); else r32((uint32_t*)A+j*M,(uint32_t*)B+j*M,M,BITS);
  s+=now()-t0;} tsum[t]=s; return 0;}
int main(int argc,char**argv){ int T=atoi(argv[1]); W=atoi(argv[2]); DIG=atoi(argv[3]); size_t bb=argc>4?(size_t)atoi(argv[4])<<10:512u<<10; M=bb/W; NB=(1u<<30)/bb; BITS=W*8-11;
 A=aligned_alloc(1<<21,1u<<30); B=aligned_alloc(1<<21,1u<<30); madvise(A,1u<<30,MADV_HUGEPAGE); madvise(B,1u<<30,MADV_HUGEPAGE);
 uint64_t s=1; for(size_t i=0;i<(1u<<30)/8;i++){s=s*6364136223846793005ull+1442695040888963407ull; ((uint64_t*)A)[i]=s>>11;} memset(B,1,1u<<30);
 if(W==4) for(size_t i=0;i<(1u<<30)/4;i++) ((uint32_t*)A)[i]>>=11;
 pthread_t P[64]; double t0=now(); for(long i=0;i<T;i++) pthread_create(&P[i],0,th,(void*)i); for(int i=0;i<T;i++) pthread_join(P[i],0);
 double w=now()-t0, ts=0; for(int i=0;i<T;i++) ts+=tsum[i];
 printf("u%d digit %d bucket %zu KiB threads %d: wall %.3f s, %.2f ns/key per thread\n", W*8, DIG, bb>>10, T, w, ts/((1u<<30)/W)*1e9);
}
