#include <cstdio>
#include <cmath>
#include <random>
#include <vector>
#include <cstdint>
#include <cstring>
// e4m3 round-to-nearest of a value in [-2,2] (mantissa 3 bits; subnormal below 2^-6, step 2^-9)
static float e4m3(float v){ if(v==0)return 0; float a=fabsf(v); int e; frexpf(a,&e); // a in [2^(e-1),2^e)
  float step = (e-1) < -6 ? ldexpf(1,-9) : ldexpf(1,(e-1)-3); float r=nearbyintf(a/step)*step; return v<0?-r:r;}
int main(){
 const int M=24,N=4096,K=7168,KB=56;
 std::mt19937 g(3); std::normal_distribution<float> n(0,1);
 std::vector<float> A(M*K),B((size_t)N*K),As(M*KB),Bs(32*KB);
 for(auto&v:A)v=e4m3(fminf(fmaxf(n(g),-2),2)); for(auto&v:B)v=e4m3(fminf(fmaxf(n(g),-2),2));
 for(auto&v:As)v=n(g); for(auto&v:Bs)v=n(g);
 int bad=0; double sig=0;
 for(int m=0;m<M;m++)for(int j=0;j<N;j++){ float s=0; double d=0;
   for(int k=0;k<K;k++){ float a=A[m*K+k]*As[m*KB+k/128], b=B[(size_t)j*K+k]*Bs[(j/128)*KB+k/128];
     s=fmaf(a,b,s); d+=(double)A[m*K+k]*B[(size_t)j*K+k]*As[m*KB+k/128]*Bs[(j/128)*KB+k/128]; }
   sig+=d*d;
   // bf16 rounding of both
   auto bf=[](double x){float f=(float)x; uint32_t u; memcpy(&u,&f,4); u+=0x7fff+((u>>16)&1); u&=0xffff0000u; memcpy(&f,&u,4); return f;};
   float r=bf(s), c=bf(d); if(fabs(c-r)>0.01+0.01*fabs(r))bad++; }
 printf("sigma_C %.4g; exact vs sequential fp32 ref: bad %d of %d\n",sqrt(sig/(M*N)),bad,M*N);
}
