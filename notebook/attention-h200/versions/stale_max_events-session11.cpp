// Session 11: how often a warp of 16 rows sees its running max grow over a 192-key d128 tile
// when the loop takes the exponentials against the stale max (softmax_stale): the fraction of
// warp-tiles whose thread row sums pass 255, whose P max passes 2^8 (a rescale) or overflows (S
// again), on the problem's unit and outlier distributions (kernels/attention/problem.cu), key tiles
// last first as the kernel takes them. No GPU: g++ -O2 stale_max_events-session11.cpp && ./a.out
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
std::mt19937_64 rng(1);
std::vector<float> gen(int n,int d,bool out){std::normal_distribution<float> N(0,1);std::uniform_real_distribution<float>U(0,1);
 std::vector<float> x(size_t(n)*d);for(auto&v:x){v=N(rng);if(out&&U(rng)<1e-3f)v+=100*N(rng);}return x;}
int main(){
 int d=128,NB=192;
 for(int out=0;out<2;++out)for(int causal=0;causal<2;++causal)for(int L:{512,2048,8192}){
  int rows=std::min(L,1024);auto q=gen(rows,d,out),k=gen(L,d,out);float sc=1.4426950408889634f/std::sqrt((float)d);
  long wt=0,sf=0,rs=0,ov=0; int q0=L-rows; int nb=(L+NB-1)/NB;
  for(int w=0;w<rows/16;++w){
   std::vector<float> m(16,-INFINITY);
   int last=causal?(q0+w*16+15)/NB:nb-1;
   for(int b=last,t=0;b>=0;--b,++t){
     std::vector<float> s(16*NB);
     for(int i=0;i<16;++i)for(int j=0;j<NB;++j){int key=b*NB+j;float v=-INFINITY;
       if(key<L&&!(causal&&key>q0+w*16+i)){v=0;for(int c=0;c<d;++c)v+=q[(w*16+i)*d+c]*k[size_t(key)*d+c];v*=sc;}s[i*NB+j]=v;}
     if(t==0){for(int i=0;i<16;++i){for(int j=0;j<NB;++j)m[i]=std::max(m[i],s[i*NB+j]);}continue;}
     ++wt;bool fail=false,over=false,resc=false;
     for(int i=0;i<16;++i){float th[4]={0,0,0,0};float pm=0,smax=-INFINITY;
       for(int j=0;j<NB;++j){float p=std::exp2(s[i*NB+j]-m[i]);th[(j/2)%4]+=p;pm=std::max(pm,p);smax=std::max(smax,s[i*NB+j]);}
       for(float x:th) if(!(x<=255))fail=true;
       if(std::isinf(pm)||std::isinf(m[i]))over=true; else if(pm>256)resc=true;
       if(smax-m[i]>8)m[i]=smax;}
     if(fail){++sf;if(over)++ov;else if(resc)++rs;}
   }}
  printf("%s %s L=%d warp-tiles %ld sumfail %.3f rescale %.3f overflow %.3f\n",out?"outl":"unit",causal?"causal":"full",L,wt,sf/(double)wt,rs/(double)wt,ov/(double)wt);
 }}
