#include <cstdio>
#include <cmath>
#include <random>
#include <vector>
#include <cstring>
#include <cstdint>
static float bf(float f){uint32_t u;memcpy(&u,&f,4);u+=0x7fff+((u>>16)&1);u&=0xffff0000u;float r;memcpy(&r,&u,4);return r;}
int main(){
 const int T=16,H=2048,I=5632;
 std::mt19937 g(1); std::normal_distribution<float> n(0,1);
 std::vector<float> x(T*H),wg(I*(size_t)H),wu(I*(size_t)H),wd((size_t)H*I);
 for(auto&v:x)v=bf(n(g)); for(auto&v:wg)v=bf(n(g)); for(auto&v:wu)v=bf(n(g)); for(auto&v:wd)v=bf(n(g));
 // h variants
 std::vector<float> hr(T*I),hc(T*I); std::vector<double> hd(T*I);
 for(int t=0;t<T;t++)for(int i=0;i<I;i++){
   float a=0,b=0; double ad=0,bd=0; float ca[16]={0},cb[16]={0};
   for(int k=0;k<H;k++){a+=x[t*H+k]*wg[(size_t)i*H+k];b+=x[t*H+k]*wu[(size_t)i*H+k];
     ad+=(double)x[t*H+k]*wg[(size_t)i*H+k];bd+=(double)x[t*H+k]*wu[(size_t)i*H+k];
     ca[k%16]+=x[t*H+k]*wg[(size_t)i*H+k];cb[k%16]+=x[t*H+k]*wu[(size_t)i*H+k];}
   float a2=0,b2=0; for(int j=0;j<16;j++){a2+=ca[j];b2+=cb[j];}
   hr[t*I+i]=a/(1+expf(-a))*b; hc[t*I+i]=a2/(1+expf(-a2))*b2; hd[t*I+i]=ad/(1+exp(-ad))*bd;}
 for(int mode=0;mode<5;mode++){ // 0: fp32 reorder, 1: bf16 h, 2: hi/lo, 3: double
  int bad=0,bad10=0; double maxrel=0;
  for(int t=0;t<T;t++)for(int o=0;o<H;o++){
   float yr=0; float c[16]={0}; double yd=0;
   for(int i=0;i<I;i++){ yr+=hr[t*I+i]*wd[(size_t)o*I+i];
     float h=hc[t*I+i]; float term;
     if(mode==1) term=bf(h)*wd[(size_t)o*I+i];
     else if(mode==2){float hi=bf(h),lo=bf(h-hi); term=hi*wd[(size_t)o*I+i]+lo*wd[(size_t)o*I+i];}
     else if(mode==4){float h1=bf(h),r1=h-h1,h2=bf(r1),h3=bf(r1-h2); term=h1*wd[(size_t)o*I+i]+h2*wd[(size_t)o*I+i]+h3*wd[(size_t)o*I+i];}
     else term=h*wd[(size_t)o*I+i];
     c[i%16]+=term; yd+=hd[t*I+i]*wd[(size_t)o*I+i];}
   float yc=0; for(int j=0;j<16;j++)yc+=c[j];
   float ref=bf(yr), got= mode==3? bf((float)yd): bf(yc);
   double e=fabs(got-ref); if(e>2.0+0.01*fabs(ref))bad++; if(e>0.05+0.05*fabs(ref))bad10++;}
  printf("mode %d bad %d bad_at_t4096tol %d of %d\n",mode,bad,bad10,T*H);}
}
