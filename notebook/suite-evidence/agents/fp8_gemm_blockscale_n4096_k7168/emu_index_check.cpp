// CPU emulation of fp8_gemm_kernel<BM> index logic (one k tile at a time, no pipeline) + gemv.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
static float dec(uint8_t b){ int s=b>>7, e=(b>>3)&15, m=b&7; float v = e==0 ? ldexpf(m,-9) : ldexpf(1+m/8.f, e-7); return s?-v:v;}
static uint8_t enc(float v){ // brute-force nearest
  uint8_t best=0; float bd=1e9; for(int b=0;b<256;b++){ if((b&0x7f)==0x7f) continue; float d=fabsf(dec(b)-v); if(d<bd){bd=d;best=b;} } return best;}
const int N=4096,K=7168,KB=56,BN=128,BK=128,THREADS=256;
static uint32_t swz(int r,int c){return r*128+((c^((r&1)<<2))<<4);}
struct R2{float lo,hi;};
static R2 cvt(uint32_t w,int sel){ uint16_t p = sel? (w>>16):(w&0xffff); return { dec(p&0xff), dec(p>>8) }; }
// mma m16n8k16: a[32][4] regs, b[32][2], c[32][4]
static void mma(float c[32][4], R2 a[32][4], R2 b[32][2]){
  float A[16][16],B[16][8];
  for(int L=0;L<32;L++){int g=L>>2,t=L&3;
    A[g][2*t]=a[L][0].lo;A[g][2*t+1]=a[L][0].hi; A[g+8][2*t]=a[L][1].lo;A[g+8][2*t+1]=a[L][1].hi;
    A[g][2*t+8]=a[L][2].lo;A[g][2*t+9]=a[L][2].hi; A[g+8][2*t+8]=a[L][3].lo;A[g+8][2*t+9]=a[L][3].hi;
    B[2*t][g]=b[L][0].lo;B[2*t+1][g]=b[L][0].hi;B[2*t+8][g]=b[L][1].lo;B[2*t+9][g]=b[L][1].hi;}
  for(int L=0;L<32;L++){int g=L>>2,t=L&3;
    for(int e=0;e<4;e++){int r=g+(e>=2?8:0), col=2*t+(e&1); double s=0; for(int k=0;k<16;k++) s+=(double)A[r][k]*B[k][col]; c[L][e]+=s;}}
}
int main(){
  const int BM=64, MF=BM/32; const int M=70;
  std::mt19937 g(5); std::normal_distribution<float> nd(0,1);
  std::vector<uint8_t> A(M*K), B((size_t)N*K); std::vector<float> As(M*KB), Bs(32*KB);
  uint8_t lut[512]; (void)lut;
  for(auto&v:A)v=enc(fminf(fmaxf(nd(g),-2),2)); for(auto&v:B)v=enc(fminf(fmaxf(nd(g),-2),2));
  for(auto&v:As)v=nd(g); for(auto&v:Bs)v=nd(g);
  std::vector<float> C((size_t)M*N, NAN);
  int tiles_n[3]={0,1,31};
  std::vector<uint8_t> smem(BM*BK+BN*BK);
  for(int by=0; by<(M+BM-1)/BM; by++) for(int tn: tiles_n){
    int n0=tn*BN, m0=by*BM;
    static float acc[8][32][2][4][4]; memset(acc,0,sizeof acc); // [warp][lane][mi][nf][4]
    for(int kt=0;kt<K/BK;kt++){
      // load_tile
      for(int tid=0;tid<THREADS;tid++){
        for(int i=0;i<(BM*8)/THREADS;i++){int q=tid+i*THREADS,r=q>>3,c=q&7,gm=m0+r; bool ok=gm<M;
          for(int j=0;j<16;j++) smem[swz(r,c)+j]= ok? A[(size_t)gm*K+kt*BK+c*16+j]:0;}
        for(int i=0;i<(BN*8)/THREADS;i++){int q=tid+i*THREADS,r=q>>3,c=q&7;
          for(int j=0;j<16;j++) smem[BM*BK+swz(r,c)+j]= B[(size_t)(n0+r)*K+kt*BK+c*16+j];}
      }
      for(int warp=0;warp<8;warp++){ int warp_m=warp>>2,warp_n=warp&3;
        static float part[2][4][32][4]; memset(part,0,sizeof part);
        for(int h=0;h<2;h++){
          uint32_t araw[32][2][2][4], braw[32][4][4];
          for(int L=0;L<32;L++){int gg=L>>2,t=L&3,c=4*h+t;
            for(int mi=0;mi<MF;mi++){int r=warp_m*(BM/2)+mi*16+gg; memcpy(araw[L][mi][0],&smem[swz(r,c)],16); memcpy(araw[L][mi][1],&smem[swz(r+8,c)],16);}
            for(int nf=0;nf<4;nf++) memcpy(braw[L][nf],&smem[BM*BK+swz(warp_n*32+nf*8+gg,c)],16);}
          for(int q=0;q<4;q++){
            R2 bf[4][32][2];
            for(int L=0;L<32;L++) for(int nf=0;nf<4;nf++){bf[nf][L][0]=cvt(braw[L][nf][q],0);bf[nf][L][1]=cvt(braw[L][nf][q],1);}
            for(int mi=0;mi<MF;mi++){ R2 a[32][4];
              for(int L=0;L<32;L++){uint32_t wl=araw[L][mi][0][q],wh=araw[L][mi][1][q];
                a[L][0]=cvt(wl,0); a[L][1]=cvt(wh,0); a[L][2]=cvt(wl,1); a[L][3]=cvt(wh,1);}
              for(int nf=0;nf<4;nf++) mma(part[mi][nf], a, bf[nf]);
            }
          }
        }
        float sbv=Bs[(n0/128)*KB+kt];
        for(int L=0;L<32;L++){int gg=L>>2; for(int mi=0;mi<MF;mi++){int r=warp_m*(BM/2)+mi*16+gg;
          float s0 = (m0+r<M? As[(m0+r)*KB+kt]:0)*sbv, s1=(m0+r+8<M? As[(m0+r+8)*KB+kt]:0)*sbv;
          for(int nf=0;nf<4;nf++){acc[warp][L][mi][nf][0]+=part[mi][nf][L][0]*s0;acc[warp][L][mi][nf][1]+=part[mi][nf][L][1]*s0;
            acc[warp][L][mi][nf][2]+=part[mi][nf][L][2]*s1;acc[warp][L][mi][nf][3]+=part[mi][nf][L][3]*s1;}}}
      }
    }
    for(int warp=0;warp<8;warp++){int warp_m=warp>>2,warp_n=warp&3; for(int L=0;L<32;L++){int gg=L>>2,t=L&3;
      for(int mi=0;mi<MF;mi++)for(int nf=0;nf<4;nf++)for(int half=0;half<2;half++){int m=m0+warp_m*(BM/2)+mi*16+gg+half*8; if(m>=M)continue;
        int n=n0+warp_n*32+nf*8+2*t; C[(size_t)m*N+n]=acc[warp][L][mi][nf][half*2]; C[(size_t)m*N+n+1]=acc[warp][L][mi][nf][half*2+1];}}}
  }
  double maxerr=0,maxref=0; int checked=0, nanc=0;
  for(int m=0;m<M;m++) for(int tn: tiles_n) for(int n=tn*BN;n<tn*BN+BN;n++){ double d=0;
    for(int k=0;k<K;k++) d+=(double)dec(A[m*K+k])*As[m*KB+k/128]*dec(B[(size_t)n*K+k])*Bs[(n/128)*KB+k/128];
    float c=C[(size_t)m*N+n]; if(std::isnan(c)){nanc++;continue;} maxerr=fmax(maxerr,fabs(c-d)); maxref=fmax(maxref,fabs(d)); checked++;}
  printf("GEMM emu: checked %d, unwritten %d, max err %.3g (max |ref| %.3g)\n",checked,nanc,maxerr,maxref);
  // GEMV emulation (row 0)
  { int row=3; double me=0; std::vector<float> sa(K);
    for(int i=0;i<K;i++){int it=i>>9,rem=i&511,l=rem>>4,j=rem&15; sa[it*512+j*32+l]=dec(A[row*K+i]);}
    for(int n=0;n<N;n+=37){ float lanes[32];
      for(int lane=0;lane<32;lane++){ float acc=0; for(int it=0;it<14;it++){int k0=it*512+lane*16,kb=k0>>7; uint32_t w[4]; memcpy(w,&B[(size_t)n*K+it*512+lane*16],16);
          float part=0; for(int q=0;q<4;q++)for(int e=0;e<4;e++) part=fmaf(dec((w[q]>>(8*e))&0xff), sa[it*512+(q*4+e)*32+lane], part);
          acc=fmaf(part, As[row*KB+kb]*Bs[(n/128)*KB+kb], acc);} lanes[lane]=acc;}
      float s=0; for(int l=0;l<32;l++) s+=lanes[l];
      double d=0; for(int k=0;k<K;k++) d+=(double)dec(A[row*K+k])*As[row*KB+k/128]*dec(B[(size_t)n*K+k])*Bs[(n/128)*KB+k/128];
      me=fmax(me,fabs(s-d));}
    printf("GEMV emu: max err %.3g\n",me);}
}
