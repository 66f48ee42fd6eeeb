#include <cstdio>
#include <cmath>
#include <random>
#include <vector>
#include <cstring>
#include <cstdint>
static float bf(float f){uint32_t u;memcpy(&u,&f,4);u+=0x7fff+((u>>16)&1);u&=0xffff0000u;float r;memcpy(&r,&u,4);return r;}
int main(){
 const int T=64,H=2048,I=5632;
 std::mt19937 g(7); std::normal_distribution<float> n(0,1);
 std::vector<float> x(T*H),wg(I*(size_t)H),wu(I*(size_t)H),wd((size_t)H*I);
 for(auto&v:x)v=bf(n(g)); for(auto&v:wg)v=bf(n(g)); for(auto&v:wu)v=bf(n(g)); for(auto&v:wd)v=bf(n(g));
 std::vector<float> hs(T*I); std::vector<double> hd(T*I);
 for(int t=0;t<T;t++)for(int i=0;i<I;i++){
   float a=0,b=0; double ad=0,bd=0;
   for(int k=0;k<H;k++){a=fmaf(x[t*H+k],wg[(size_t)i*H+k],a);b=fmaf(x[t*H+k],wu[(size_t)i*H+k],b);
     ad+=(double)x[t*H+k]*wg[(size_t)i*H+k];bd+=(double)x[t*H+k]*wu[(size_t)i*H+k];}
   hs[t*I+i]=a/(1+expf(-a))*b; hd[t*I+i]=ad/(1+exp(-ad))*bd;}
 std::vector<float> yseq(T*H), yex(T*H); double sig=0;
 for(int t=0;t<T;t++)for(int o=0;o<H;o++){ float s=0; double d=0;
   for(int i=0;i<I;i++){ s=fmaf(hs[t*I+i],wd[(size_t)o*I+i],s); d+=hd[t*I+i]*wd[(size_t)o*I+i];}
   yseq[t*H+o]=bf(s); yex[t*H+o]=bf((float)d); sig+=d*d;}
 sig=sqrt(sig/(T*H));
 int bad=0,bad3=0; for(int i=0;i<T*H;i++){double e=fabs(yex[i]-yseq[i]); if(e>0.01+0.01*fabs(yseq[i]))bad++; if(e>0.01+0.03*fabs(yseq[i]))bad3++;}
 printf("sigma_y %.4g; exact(double) vs sequential-fp32 reference: bad %d of %d (rtol .01), %d at rtol .03\n",sig,bad,T*H,bad3);
}
