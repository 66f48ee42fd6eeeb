// CPU emulation of swiglu gemm_kernel<BM,MODE> index logic with reduced HID/INTER.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
static float bf(float f){uint32_t u;memcpy(&u,&f,4);u+=0x7fff+((u>>16)&1);u&=0xffff0000u;float r;memcpy(&r,&u,4);return r;}
static uint16_t bits(float f){uint32_t u;memcpy(&u,&f,4);return u>>16;}
static float unb(uint16_t b){uint32_t u=(uint32_t)b<<16;float f;memcpy(&f,&u,4);return f;}
const int HID=256, INTER=256, BK=64, BN=128, THREADS=256, PLANES=2;
static uint32_t swz(int r,int c){return r*128+((c^(r&7))<<4);}
struct R2{float lo,hi;};
static void mma(float c[32][4], R2 a[32][4], R2 b0[32], R2 b1[32]){
  float A[16][16],B[16][8];
  for(int L=0;L<32;L++){int g=L>>2,t=L&3;
    A[g][2*t]=a[L][0].lo;A[g][2*t+1]=a[L][0].hi; A[g+8][2*t]=a[L][1].lo;A[g+8][2*t+1]=a[L][1].hi;
    A[g][2*t+8]=a[L][2].lo;A[g][2*t+9]=a[L][2].hi; A[g+8][2*t+8]=a[L][3].lo;A[g+8][2*t+9]=a[L][3].hi;
    B[2*t][g]=b0[L].lo;B[2*t+1][g]=b0[L].hi;B[2*t+8][g]=b1[L].lo;B[2*t+9][g]=b1[L].hi;}
  for(int L=0;L<32;L++){int g=L>>2,t=L&3;
    for(int e=0;e<4;e++){int r=g+(e>=2?8:0), col=2*t+(e&1); double s=0; for(int k=0;k<16;k++) s+=(double)A[r][k]*B[k][col]; c[L][e]+=s;}}
}
// ldmatrix x4: addr[lane] -> out[lane][4] (pairs)
static void ldm(const std::vector<uint8_t>& sm, uint32_t addr[32], R2 out[32][4]){
  for(int i=0;i<4;i++) for(int T=0;T<32;T++){ int row=T>>2, col=2*(T&3); uint32_t a=addr[i*8+row];
    uint16_t v0,v1; memcpy(&v0,&sm[a+col*2],2); memcpy(&v1,&sm[a+col*2+2],2); out[T][i]={unb(v0),unb(v1)}; }
}
template<int BM,int MODE>
void run(const std::vector<uint16_t>& A, const std::vector<uint16_t>& B, std::vector<uint16_t>& ob, std::vector<float>* of,
         int T, int kt_per_split, int total_kt, int gx, int gy, int gz){
  constexpr int MF=BM/32; const size_t plane_stride=(size_t)T*INTER;
  std::vector<uint8_t> sm(BM*128+BN*128);
  for(int bz=0;bz<gz;bz++)for(int by=0;by<gy;by++)for(int bx=0;bx<gx;bx++){
    int m0=by*BM, nt=bx, kt_begin=bz*kt_per_split, kt_end=std::min(kt_begin+kt_per_split,total_kt), KT=kt_end-kt_begin;
    static float acc[8][MF][4][32][4]; memset(acc,0,sizeof acc);
    for(int kt=0;kt<KT;kt++){ int vkt=kt_begin+kt;
      const uint16_t* a_base; int lda,kcol; int ldb;
      if(MODE==0){a_base=A.data();lda=HID;kcol=vkt*BK;ldb=HID;} else {int plane=vkt%PLANES,k2=vkt/PLANES;a_base=A.data()+plane*plane_stride;lda=INTER;kcol=k2*BK;ldb=INTER;}
      for(int tid=0;tid<THREADS;tid++){
        for(int i=0;i<(BM*8)/THREADS;i++){int q=tid+i*THREADS,r=q>>3,c=q&7,gm=m0+r;bool ok=gm<T;
          for(int j=0;j<8;j++){uint16_t v= ok? a_base[(size_t)gm*lda+kcol+c*8+j]:0; memcpy(&sm[swz(r,c)+2*j],&v,2);}}
        for(int i=0;i<(BN*8)/THREADS;i++){int q=tid+i*THREADS,r=q>>3,c=q&7; int gn= MODE==0 ? (r<64? nt*64+r : INTER+nt*64+(r-64)) : nt*BN+r;
          for(int j=0;j<8;j++){uint16_t v=B[(size_t)gn*ldb+kcol+c*8+j]; memcpy(&sm[BM*128+swz(r,c)+2*j],&v,2);}}
      }
      for(int warp=0;warp<8;warp++){int warp_m=warp>>2,warp_n=warp&3;
        float part[MF][4][32][4]; memset(part,0,sizeof part);
        for(int ks=0;ks<BK/16;ks++){
          R2 af[MF][32][4];
          for(int mi=0;mi<MF;mi++){uint32_t ad[32]; for(int lane=0;lane<32;lane++){int lrow=lane&7,lmat=lane>>3;
              int r=warp_m*(BM/2)+mi*16+lrow+((lmat&1)?8:0), c=ks*2+(lmat>>1); ad[lane]=swz(r,c);} ldm(sm,ad,af[mi]);}
          R2 bfr[2][32][4];
          for(int p=0;p<2;p++){uint32_t ad[32]; for(int lane=0;lane<32;lane++){int lrow=lane&7,lmat=lane>>3;
              int n_off=(MODE==0)?(p*64+warp_n*16):(warp_n*32+p*16); int r=n_off+lrow+((lmat>>1)?8:0), c=ks*2+(lmat&1); ad[lane]=BM*128+swz(r,c);} ldm(sm,ad,bfr[p]);}
          for(int mi=0;mi<MF;mi++)for(int nf=0;nf<4;nf++){int p=nf>>1,h=nf&1; R2 b0[32],b1[32]; for(int L=0;L<32;L++){b0[L]=bfr[p][L][h*2];b1[L]=bfr[p][L][h*2+1];}
            mma(part[mi][nf],af[mi],b0,b1);}
        }
        for(int mi=0;mi<MF;mi++)for(int nf=0;nf<4;nf++)for(int L=0;L<32;L++)for(int e=0;e<4;e++) acc[warp][mi][nf][L][e]+=part[mi][nf][L][e];
      }
    }
    for(int warp=0;warp<8;warp++){int warp_m=warp>>2,warp_n=warp&3; for(int lane=0;lane<32;lane++){int g=lane>>2,t=lane&3;
      if(MODE==0){ for(int mi=0;mi<MF;mi++)for(int nf=0;nf<2;nf++)for(int half=0;half<2;half++){int m=m0+warp_m*(BM/2)+mi*16+g+half*8; if(m>=T)continue;
          int j=nt*64+warp_n*16+nf*8+2*t; for(int e=0;e<2;e++){float gt=acc[warp][mi][nf][lane][half*2+e], up=acc[warp][mi][nf+2][lane][half*2+e];
            float hv=gt/(1.0f+expf(-gt))*up; size_t off=(size_t)m*INTER+j+e; float r=hv;
            for(int p=0;p<PLANES;p++){float q=bf(r); r-=q; ob[p*plane_stride+off]=bits(q);}}}}
      else { for(int mi=0;mi<MF;mi++)for(int nf=0;nf<4;nf++)for(int half=0;half<2;half++){int m=m0+warp_m*(BM/2)+mi*16+g+half*8; if(m>=T)continue;
          int n=nt*BN+warp_n*32+nf*8+2*t; for(int e=0;e<2;e++){float v=acc[warp][mi][nf][lane][half*2+e];
            if(of) (*of)[(size_t)bz*T*HID+(size_t)m*HID+n+e]=v; else ob[(size_t)m*HID+n+e]=bits(bf(v));}}}
    }}
  }
}
template<int BM> void test(int T, int splits_req){
  std::mt19937 g(11); std::normal_distribution<float> nd(0,1);
  std::vector<uint16_t> x(T*HID), wgu(2*INTER*HID), wd(HID*INTER);
  for(auto&v:x)v=bits(bf(nd(g))); for(auto&v:wgu)v=bits(bf(nd(g))); for(auto&v:wd)v=bits(bf(nd(g)));
  std::vector<uint16_t> h(PLANES*(size_t)T*INTER, 0xFFFF), y(T*HID, 0xFFFF);
  run<BM,0>(x,wgu,h,nullptr,T,HID/BK,HID/BK,INTER/64,(T+BM-1)/BM,1);
  int total_kt=PLANES*(INTER/BK); int per=(total_kt+splits_req-1)/splits_req; int splits=(total_kt+per-1)/per;
  std::vector<float> P((size_t)splits*T*HID, NAN);
  run<BM,1>(h,wd,y,splits>1?&P:nullptr,T,per,total_kt,HID/BN,(T+BM-1)/BM,splits);
  if(splits>1) for(size_t i=0;i<(size_t)T*HID;i++){float s=0; for(int z=0;z<splits;z++) s+=P[z*(size_t)T*HID+i]; y[i]=bits(bf(s));}
  double me=0, mr=0; int bad=0;
  for(int t=0;t<T;t++)for(int o=0;o<HID;o++){ double yy=0; for(int i=0;i<INTER;i++){ double a=0,b=0; for(int k=0;k<HID;k++){a+=(double)unb(x[t*HID+k])*unb(wgu[(size_t)i*HID+k]); b+=(double)unb(x[t*HID+k])*unb(wgu[(size_t)(INTER+i)*HID+k]);}
      yy+= a/(1+exp(-a))*b*unb(wd[(size_t)o*INTER+i]);}
    float gv=unb(y[t*HID+o]); if(std::isnan(gv)){bad++;continue;} me=fmax(me,fabs(gv-yy)); mr=fmax(mr,fabs(yy)); }
  printf("BM=%d T=%d splits=%d: max err %.4g (max |y| %.4g), nan %d\n",BM,T,splits,me,mr,bad);
}
int main(){ test<64>(20,3); test<64>(1,8); test<128>(130,1); test<128>(200,5); }
