//go:build linux && !mips64le

package wordindex

import "math"

// ln is the natural logarithm as musl's log computes it (src/math/log.c,
// from ARM's optimized-routines, MIT licence), operation for operation and
// with its tables: the logarithm modernc.org/sqlite's ln() and FTS5's
// bm25() take on Linux, where their C library is musl translated to Go
// (ln_other.go has the other systems'). Go's math.Log differs from it in
// the last bit for about one argument in fourteen (measured over every IDF
// of documents of 1,000 to 200,000 sections), and a score that differs
// there can swap two sections: with ln, IDF is bm25()'s to the bit without
// asking SQLite for it (a query for each new document size and frequency;
// internal/db's TestIDFIsSQLites holds the two together). Every product is
// converted to float64 on its own, as the translated C does, so that no
// compiler fuses a multiply and an add the C code keeps apart.
func ln(x float64) float64 {
	ix := math.Float64bits(x)
	top := uint32(ix >> 48)
	if ix-lnNearOneLo < lnNearOneHi-lnNearOneLo {
		// Close to 1.0, where the table's intervals lose precision.
		if ix == math.Float64bits(1) {
			return 0
		}
		b := &lnPoly1
		r := x - 1
		r2 := float64(r * r)
		r3 := float64(r * r2)
		y := float64(r3 * (b[1] + float64(r*b[2]) + float64(r2*b[3]) +
			float64(r3*(b[4]+float64(r*b[5])+float64(r2*b[6])+
				float64(r3*(b[7]+float64(r*b[8])+float64(r2*b[9])+float64(r3*b[10])))))))
		// Worst-case error is around 0.507 ULP.
		w := float64(r * 0x1p27)
		rhi := r + w - w
		rlo := r - rhi
		w = float64(float64(rhi*rhi) * b[0]) // b[0] == -0.5
		hi := r + w
		lo := r - hi + w
		lo = lo + float64(float64(b[0]*rlo)*(rhi+r))
		y = y + lo
		y = y + hi
		return y
	}
	if top-0x0010 >= 0x7ff0-0x0010 {
		// x < 0x1p-1022 or inf or nan.
		switch {
		case ix*2 == 0:
			return math.Inf(-1)
		case ix == math.Float64bits(math.Inf(1)):
			return x
		case top&0x8000 != 0 || top&0x7ff0 == 0x7ff0:
			return math.NaN()
		}
		// x is subnormal: normalise it.
		ix = math.Float64bits(float64(x * 0x1p52))
		ix -= 52 << 52
	}
	// x = 2^k z, where z is in [lnOff, 2·lnOff) and exact. The range is
	// split into 128 intervals; the i-th holds z, and c is near its
	// centre.
	tmp := ix - lnOff
	i := int(tmp >> (52 - lnTableBits) % (1 << lnTableBits))
	k := int64(tmp) >> 52 // arithmetic shift
	iz := ix - tmp&(0xfff<<52)
	invc, logc := lnTab[i][0], lnTab[i][1]
	z := math.Float64frombits(iz)
	// log(x) = log1p(z/c-1) + log(c) + k·Ln2; r ≈ z/c - 1, |r| < 1/256.
	r := float64((z - lnTab2[i][0] - lnTab2[i][1]) * invc)
	kd := float64(k)
	// hi + lo = r + log(c) + k·Ln2.
	w := float64(kd*lnLn2Hi) + logc
	hi := w + r
	lo := w - hi + r + float64(kd*lnLn2Lo)
	// log(x) = lo + (log1p(r) - r) + hi.
	a := &lnPoly
	r2 := float64(r * r)
	return lo + float64(r2*a[0]) + float64(float64(r*r2)*(a[1]+float64(r*a[2])+float64(r2*(a[3]+float64(r*a[4]))))) + hi
}

// The constants of musl's log (log.c, log_data.c).
const (
	lnTableBits = 7
	lnOff       = 0x3fe6000000000000
	lnNearOneLo = 0x3fee000000000000 // 1 - 0x1p-4
	lnNearOneHi = 0x3ff1090000000000 // 1 + 0x1.09p-4
	lnLn2Hi     = 0x1.62e42fefa38p-01
	lnLn2Lo     = 0x1.ef35793c7673p-45
)

var (
	lnPoly  = [5]float64{-0x1.0000000000001p-01, 0x1.555555551305bp-02, -0x1.fffffffeb459p-03, 0x1.999b324f10111p-03, -0x1.55575e506c89fp-03}
	lnPoly1 = [11]float64{-0x1p-01, 0x1.5555555555577p-02, -0x1.ffffffffffdcbp-03, 0x1.999999995dd0cp-03, -0x1.55555556745a7p-03, 0x1.24924a344de3p-03, -0x1.fffffa4423d65p-04, 0x1.c7184282ad6cap-04, -0x1.999eb43b068ffp-04, 0x1.78182f7afd085p-04, -0x1.5521375d145cdp-04}
	// lnTab is 1/c and log(c) of each interval; lnTab2 is c split in a
	// high and a low part, for a machine without fused multiply-add.
	lnTab = [1 << lnTableBits][2]float64{
		{0x1.734f0c3e0de9fp+00, -0x1.7cc7f79e69p-02},
		{0x1.713786a2ce91fp+00, -0x1.76feec20dp-02},
		{0x1.6f26008fab5ap+00, -0x1.713e31351ep-02},
		{0x1.6d1a61f138c7dp+00, -0x1.6b85b382878p-02},
		{0x1.6b1490bc5b4d1p+00, -0x1.65d55908078p-02},
		{0x1.69147332f0cbap+00, -0x1.602d07618p-02},
		{0x1.6719f18224223p+00, -0x1.5a8ca86909p-02},
		{0x1.6524f99a51ed9p+00, -0x1.54f4356035p-02},
		{0x1.63356aa8f24c4p+00, -0x1.4f637c36b4p-02},
		{0x1.614b36b9ddc14p+00, -0x1.49da7fda85p-02},
		{0x1.5f66452c65c4cp+00, -0x1.445923989a8p-02},
		{0x1.5d867b5912c4fp+00, -0x1.3edf439b0b8p-02},
		{0x1.5babccb5b90dep+00, -0x1.396ce448f7p-02},
		{0x1.59d61f2d91a78p+00, -0x1.3401e17bdap-02},
		{0x1.5805612465687p+00, -0x1.2e9e2ef468p-02},
		{0x1.56397cee76bd3p+00, -0x1.2941b3830ep-02},
		{0x1.54725e2a77f93p+00, -0x1.23ec58cda88p-02},
		{0x1.52aff42064583p+00, -0x1.1e9e129279p-02},
		{0x1.50f22dbb2bddfp+00, -0x1.1956d2b48f8p-02},
		{0x1.4f38f4734ded7p+00, -0x1.141679ab9f8p-02},
		{0x1.4d843cfde284p+00, -0x1.0edd094ef98p-02},
		{0x1.4bd3ec078a3c8p+00, -0x1.09aa518db1p-02},
		{0x1.4a27fc3e0258ap+00, -0x1.047e65263b8p-02},
		{0x1.4880524d48434p+00, -0x1.feb224586fp-03},
		{0x1.46dce1b192d0bp+00, -0x1.f474a7517bp-03},
		{0x1.453d9d3391854p+00, -0x1.ea4443d103p-03},
		{0x1.43a2744b4845ap+00, -0x1.e020d44e9bp-03},
		{0x1.420b54115f8fbp+00, -0x1.d60a22977fp-03},
		{0x1.40782da3ef4b1p+00, -0x1.cc00104959p-03},
		{0x1.3ee8f5d57fe8fp+00, -0x1.c202956891p-03},
		{0x1.3d5d9a00b4ce9p+00, -0x1.b81178d811p-03},
		{0x1.3bd60c010c12bp+00, -0x1.ae2c9ccd3dp-03},
		{0x1.3a5242b75dab8p+00, -0x1.a45402e129p-03},
		{0x1.38d22cd9fd002p+00, -0x1.9a877681dfp-03},
		{0x1.3755bc5847a1cp+00, -0x1.90c6d69483p-03},
		{0x1.35dce49ad36e2p+00, -0x1.87120a645cp-03},
		{0x1.34679984dd44p+00, -0x1.7d68fb4143p-03},
		{0x1.32f5cceffcb24p+00, -0x1.73cb83c627p-03},
		{0x1.3187775a10d49p+00, -0x1.6a39a9b376p-03},
		{0x1.301c8373e399p+00, -0x1.60b3154b7ap-03},
		{0x1.2eb4ebb95f841p+00, -0x1.5737d76243p-03},
		{0x1.2d50a0219a9d1p+00, -0x1.4dc7b8fc23p-03},
		{0x1.2bef9a8b7fd2ap+00, -0x1.4462c51d2p-03},
		{0x1.2a91c7a0c1babp+00, -0x1.3b08abc83p-03},
		{0x1.293726014b53p+00, -0x1.31b996b49p-03},
		{0x1.27dfa5757a1f5p+00, -0x1.2875490a44p-03},
		{0x1.268b39b1d3bbfp+00, -0x1.1f3b9f879ap-03},
		{0x1.2539d838ff5bdp+00, -0x1.160c8252cap-03},
		{0x1.23eb7aac9083bp+00, -0x1.0ce7f57f72p-03},
		{0x1.22a012ba940b6p+00, -0x1.03cdc49feap-03},
		{0x1.2157996cc4132p+00, -0x1.f57bdbc4b8p-04},
		{0x1.201201dd2fc9bp+00, -0x1.e370896404p-04},
		{0x1.1ecf4494d480bp+00, -0x1.d17983ef94p-04},
		{0x1.1d8f5528f6569p+00, -0x1.bf9674ed8ap-04},
		{0x1.1c52311577e7cp+00, -0x1.adc79202f6p-04},
		{0x1.1b17c74cb26e9p+00, -0x1.9c0c3e7288p-04},
		{0x1.19e010c2c1ab6p+00, -0x1.8a646b372cp-04},
		{0x1.18ab07bb670bdp+00, -0x1.78d01b3acp-04},
		{0x1.1778a25efbcb6p+00, -0x1.674f14538p-04},
		{0x1.1648d354c31dap+00, -0x1.55e0e6d878p-04},
		{0x1.151b990275fddp+00, -0x1.4485cdea1ep-04},
		{0x1.13f0ea432d24cp+00, -0x1.333d94d6aap-04},
		{0x1.12c8b7210f9dap+00, -0x1.22079f8c56p-04},
		{0x1.11a3028ecb531p+00, -0x1.10e4698622p-04},
		{0x1.107fbda8434afp+00, -0x1.ffa6c6ad2p-05},
		{0x1.0f5ee0f4e6bb3p+00, -0x1.dda8d4a774p-05},
		{0x1.0e4065d2a9fcep+00, -0x1.bbcece485p-05},
		{0x1.0d244632ca521p+00, -0x1.9a1894012cp-05},
		{0x1.0c0a77ce2981ap+00, -0x1.788583302cp-05},
		{0x1.0af2f83c636d1p+00, -0x1.5715e67d68p-05},
		{0x1.09ddb98a01339p+00, -0x1.35c8a49658p-05},
		{0x1.08cabaf52e7dfp+00, -0x1.149e364154p-05},
		{0x1.07b9f2f4e28fbp+00, -0x1.e72c082eb8p-06},
		{0x1.06ab58c358f19p+00, -0x1.a55f152528p-06},
		{0x1.059eea5ecf92cp+00, -0x1.63d62cf818p-06},
		{0x1.04949cdd12c9p+00, -0x1.228fb8caap-06},
		{0x1.038c6c6f0ada9p+00, -0x1.c317b20f9p-07},
		{0x1.02865137932a9p+00, -0x1.419355daap-07},
		{0x1.0182427ea7348p+00, -0x1.81203c2ecp-08},
		{0x1.008040614b195p+00, -0x1.004097924p-09},
		{0x1.fe01ff726fa1ap-01, 0x1.feff3849p-09},
		{0x1.fa11cc261ea74p-01, 0x1.7dc41353dp-07},
		{0x1.f6310b081992ep-01, 0x1.3cea3c4c28p-06},
		{0x1.f25f63ceeadcdp-01, 0x1.b9fc11489p-06},
		{0x1.ee9c8039113e7p-01, 0x1.1b0d8ce11p-05},
		{0x1.eae8078cbb1abp-01, 0x1.58a5bd001cp-05},
		{0x1.e741aa29d0c9bp-01, 0x1.95c8340d88p-05},
		{0x1.e3a91830a99b5p-01, 0x1.d276aef578p-05},
		{0x1.e01e009609a56p-01, 0x1.07598e598cp-04},
		{0x1.dca01e577bb98p-01, 0x1.253f5e30d2p-04},
		{0x1.d92f20b7c9103p-01, 0x1.42edd8b38p-04},
		{0x1.d5cac66fb5ccep-01, 0x1.606598757cp-04},
		{0x1.d272caa5ede9dp-01, 0x1.7da76356ap-04},
		{0x1.cf26e3e6b2ccdp-01, 0x1.9ab434e1c6p-04},
		{0x1.cbe6da2a77902p-01, 0x1.b78c7bb0d6p-04},
		{0x1.c8b266d37086dp-01, 0x1.d431332e72p-04},
		{0x1.c5894bd5d5804p-01, 0x1.f0a3171de6p-04},
		{0x1.c26b533bb9f8cp-01, 0x1.067152b914p-03},
		{0x1.bf583eeece73fp-01, 0x1.147858292bp-03},
		{0x1.bc4fd75db96c1p-01, 0x1.2266ecdca3p-03},
		{0x1.b951e0c864a28p-01, 0x1.303d7a6c55p-03},
		{0x1.b65e2c5ef3e2cp-01, 0x1.3dfc33c331p-03},
		{0x1.b374867c9888bp-01, 0x1.4ba366b7a8p-03},
		{0x1.b094b211d304ap-01, 0x1.5933928d1fp-03},
		{0x1.adbe885f2ef7ep-01, 0x1.66acd2418fp-03},
		{0x1.aaf1d31603da2p-01, 0x1.740f8ec669p-03},
		{0x1.a82e63fd358a7p-01, 0x1.815c0f51afp-03},
		{0x1.a5740ef09738bp-01, 0x1.8e92954f68p-03},
		{0x1.a2c2a90ab4b27p-01, 0x1.9bb3602f84p-03},
		{0x1.a01a01393f2d1p-01, 0x1.a8bed1c2cp-03},
		{0x1.9d79f24db3c1bp-01, 0x1.b5b515c01dp-03},
		{0x1.9ae2505c7b19p-01, 0x1.c2967ccbccp-03},
		{0x1.9852ef297ce2fp-01, 0x1.cf635d5486p-03},
		{0x1.95cbaeea44b75p-01, 0x1.dc1bd3446cp-03},
		{0x1.934c69de74838p-01, 0x1.e8c01b8cfep-03},
		{0x1.90d4f2f6752e6p-01, 0x1.f5509c0179p-03},
		{0x1.8e6528effd79dp-01, 0x1.00e6c121fb8p-02},
		{0x1.8bfce9fcc007cp-01, 0x1.071b80e93dp-02},
		{0x1.899c0dabec30ep-01, 0x1.0d46b9e867p-02},
		{0x1.87427aa2317fbp-01, 0x1.13687334bdp-02},
		{0x1.84f00acb39a08p-01, 0x1.1980d672348p-02},
		{0x1.82a49e8653e55p-01, 0x1.1f8ffe0cc8p-02},
		{0x1.8060195f4026p-01, 0x1.2595fd76368p-02},
		{0x1.7e22563e0a329p-01, 0x1.2b9300914a8p-02},
		{0x1.7beb377dcb5adp-01, 0x1.3187210436p-02},
		{0x1.79baa679725c2p-01, 0x1.377266dec18p-02},
		{0x1.77907f2170657p-01, 0x1.3d54ffbaf3p-02},
		{0x1.756cadbd6130cp-01, 0x1.432eee32fep-02},
	}
	lnTab2 = [1 << lnTableBits][2]float64{
		{0x1.61000014fb66bp-01, 0x1.e026c91425b3cp-56},
		{0x1.63000034db495p-01, 0x1.dbfea48005d41p-55},
		{0x1.650000d94d478p-01, 0x1.e7fa786d6a5b7p-55},
		{0x1.67000074e6fadp-01, 0x1.1fcea6b54254cp-57},
		{0x1.68ffffedf0faep-01, -0x1.c7e274c590efdp-56},
		{0x1.6b0000763c5bcp-01, -0x1.ac16848dcda01p-55},
		{0x1.6d0001e5cc1f6p-01, 0x1.33f1c9d499311p-55},
		{0x1.6efffeb05f63ep-01, -0x1.e80041ae22d53p-56},
		{0x1.710000e86978p-01, 0x1.bff6671097952p-56},
		{0x1.72ffffc67e912p-01, 0x1.c00e226bd8724p-55},
		{0x1.74fffdf81116ap-01, -0x1.e02916ef101d2p-57},
		{0x1.770000f679c9p-01, -0x1.7fc71cd549c74p-57},
		{0x1.78ffffa7ec835p-01, 0x1.1bec19ef50483p-55},
		{0x1.7affffe20c2e6p-01, -0x1.07e1729cc6465p-56},
		{0x1.7cfffed3fc9p-01, -0x1.08072087b8b1cp-55},
		{0x1.7efffe9261a76p-01, 0x1.dc0286d9df9aep-55},
		{0x1.81000049ca3e8p-01, 0x1.97fd251e54c33p-55},
		{0x1.8300017932c8fp-01, -0x1.afee9b630f381p-55},
		{0x1.850000633739cp-01, 0x1.9bfbf6b6535bcp-55},
		{0x1.87000204289c6p-01, -0x1.bbf65f3117b75p-55},
		{0x1.88fffebf57904p-01, -0x1.9006ea23dcb57p-55},
		{0x1.8b00022bc04dfp-01, -0x1.d00df38e04b0ap-56},
		{0x1.8cfffe50c1b8ap-01, -0x1.8007146ff9f05p-55},
		{0x1.8effffc918e43p-01, 0x1.3817bd07a7038p-55},
		{0x1.910001efa5fc7p-01, 0x1.93e9176dfb403p-55},
		{0x1.9300013467bb9p-01, 0x1.f804e4b980276p-56},
		{0x1.94fffe6ee076fp-01, -0x1.f7ef0d9ff622ep-55},
		{0x1.96fffde3c12d1p-01, -0x1.082aa962638bap-56},
		{0x1.98ffff4458a0dp-01, -0x1.7801b9164a8efp-55},
		{0x1.9afffdd982e3ep-01, -0x1.740e08a5a9337p-55},
		{0x1.9cfffed49fb66p-01, 0x1.fce08c19bep-60},
		{0x1.9f00020f19c51p-01, -0x1.a3faa27885b0ap-55},
		{0x1.a10001145b006p-01, 0x1.4ff489958da56p-56},
		{0x1.a300007bbf6fap-01, 0x1.cbeab8a2b6d18p-55},
		{0x1.a500010971d79p-01, 0x1.8fecadd78793p-55},
		{0x1.a70001df52e48p-01, -0x1.f41763dd8abdbp-55},
		{0x1.a90001c593352p-01, -0x1.ebf0284c27612p-55},
		{0x1.ab0002a4f3e4bp-01, -0x1.9fd043cff3f5fp-57},
		{0x1.acfffd7ae1ed1p-01, -0x1.23ee7129070b4p-55},
		{0x1.aefffee510478p-01, 0x1.a063ee00edea3p-57},
		{0x1.b0fffdb650d5bp-01, 0x1.a06c8381f0ab9p-58},
		{0x1.b2ffffeaaca57p-01, -0x1.9011e74233c1dp-56},
		{0x1.b4fffd995badcp-01, -0x1.9ff1068862a9fp-56},
		{0x1.b7000249e659cp-01, 0x1.aff45d0864f3ep-55},
		{0x1.b8ffff987164p-01, 0x1.cfe7796c2c3f9p-56},
		{0x1.bafffd204cb4fp-01, -0x1.3ff27eef22bc4p-57},
		{0x1.bcfffd2415c45p-01, -0x1.cffb7ee3bea21p-57},
		{0x1.beffff86309dfp-01, -0x1.14103972e0b5cp-55},
		{0x1.c0fffe1b57653p-01, 0x1.bc16494b76a19p-55},
		{0x1.c2ffff1fa57e3p-01, -0x1.4feef8d30c6edp-57},
		{0x1.c4fffdcbfe424p-01, -0x1.43f68bcec4775p-55},
		{0x1.c6fffed54b9f7p-01, 0x1.47ea3f053e0ecp-55},
		{0x1.c8fffeb998fd5p-01, 0x1.383068df992f1p-56},
		{0x1.cb0002125219ap-01, -0x1.8fd8e64180e04p-57},
		{0x1.ccfffdd94469cp-01, 0x1.e7ebe1cc7ea72p-55},
		{0x1.cefffeafdc476p-01, 0x1.ebe39ad9f88fep-55},
		{0x1.d1000169af82bp-01, 0x1.57d91a8b95a71p-56},
		{0x1.d30000d0ff71dp-01, 0x1.9c1906970c7dap-55},
		{0x1.d4fffea790fc4p-01, -0x1.80e37c558fe0cp-58},
		{0x1.d70002edc87e5p-01, -0x1.f80d64dc10f44p-56},
		{0x1.d900021dc82aap-01, -0x1.47c8f94fd5c5cp-56},
		{0x1.dafffd86b0283p-01, 0x1.c7f1dc521617ep-55},
		{0x1.dd000296c4739p-01, 0x1.8019eb2ffb153p-55},
		{0x1.defffe54490f5p-01, 0x1.e00d2c652cc89p-57},
		{0x1.e0fffcdabf694p-01, -0x1.f8340202d69d2p-56},
		{0x1.e2fffdb52c8ddp-01, 0x1.b00c1ca1b0864p-56},
		{0x1.e4ffff24216efp-01, 0x1.2ffa8b094ab51p-56},
		{0x1.e6fffe88a5e11p-01, -0x1.7f673b1efbe59p-58},
		{0x1.e9000119eff0dp-01, -0x1.4808d5e0bc801p-55},
		{0x1.eafffdfa51744p-01, 0x1.80006d54320b5p-56},
		{0x1.ed0001a127fa1p-01, -0x1.002f860565c92p-58},
		{0x1.ef00007babcc4p-01, -0x1.540445d35e611p-55},
		{0x1.f0ffff57a8d02p-01, -0x1.ffb3139ef9105p-59},
		{0x1.f30001ee58ac7p-01, 0x1.a81acf2731155p-55},
		{0x1.f4ffff5823494p-01, 0x1.a3f41d4d7c743p-55},
		{0x1.f6ffffca94c6bp-01, -0x1.202f41c987875p-57},
		{0x1.f8fffe1f9c441p-01, 0x1.77dd1f477e74bp-56},
		{0x1.fafffd2e0e37ep-01, -0x1.f01199a7ca331p-57},
		{0x1.fd0001c77e49ep-01, 0x1.181ee4bceacb1p-56},
		{0x1.feffff7e0c331p-01, -0x1.e05370170875ap-57},
		{0x1.00ffff465606ep+00, -0x1.a7ead491c0adap-55},
		{0x1.02ffff3867a58p+00, -0x1.77f69c3fcb2ep-54},
		{0x1.04ffffdfc0d17p+00, 0x1.7bffe34cb945bp-54},
		{0x1.0700003cd4d82p+00, 0x1.20083c0e456cbp-55},
		{0x1.08ffff9f2cbe8p+00, -0x1.dffdfbe37751ap-57},
		{0x1.0b000010cda65p+00, -0x1.13f7faee626ebp-54},
		{0x1.0d00001a4d338p+00, 0x1.07dfa79489ff7p-55},
		{0x1.0effffadafdfdp+00, -0x1.7040570d66bcp-56},
		{0x1.110000bbafd96p+00, 0x1.e80d4846d0b62p-55},
		{0x1.12ffffae5f45dp+00, 0x1.dbffa64fd36efp-54},
		{0x1.150000dd59ad9p+00, 0x1.a0077701250aep-54},
		{0x1.170000f21559ap+00, 0x1.dfdf9e2e3deeep-55},
		{0x1.18ffffc275426p+00, 0x1.10030dc3b7273p-54},
		{0x1.1b000123d3c59p+00, 0x1.97f7980030188p-54},
		{0x1.1cffff8299eb7p+00, -0x1.5f932ab9f8c67p-57},
		{0x1.1effff48ad4p+00, 0x1.37fbf9da75bebp-54},
		{0x1.210000c8b86a4p+00, 0x1.f806b91fd5b22p-54},
		{0x1.2300003854303p+00, 0x1.3ffc2eb9fbf33p-54},
		{0x1.24fffffbcf684p+00, 0x1.601e77e2e2e72p-56},
		{0x1.26ffff52921d9p+00, 0x1.ffcbb767f0c61p-56},
		{0x1.2900014933a3cp+00, -0x1.202ca3c02412bp-56},
		{0x1.2b00014556313p+00, -0x1.2808233f21f02p-54},
		{0x1.2cfffebfe523bp+00, -0x1.8ff7e384fdcf2p-55},
		{0x1.2f0000bb8ad96p+00, -0x1.5ff51503041c5p-55},
		{0x1.30ffffb7ae2afp+00, -0x1.10071885e289dp-55},
		{0x1.32ffffeac5f7fp+00, -0x1.1ff5d3fb7b715p-54},
		{0x1.350000ca66756p+00, 0x1.57f82228b82bdp-54},
		{0x1.3700011fbf721p+00, 0x1.000bac40dd5ccp-55},
		{0x1.38ffff9592fb9p+00, -0x1.43f9d2db2a751p-54},
		{0x1.3b00004ddd242p+00, 0x1.57f6b707638e1p-55},
		{0x1.3cffff5b2c957p+00, 0x1.a023a10bf1231p-56},
		{0x1.3efffeab0b418p+00, 0x1.87f6d66b152bp-54},
		{0x1.410001532aff4p+00, 0x1.7f8375f198524p-57},
		{0x1.4300017478b29p+00, 0x1.301e672dc5143p-55},
		{0x1.44fffe795b463p+00, 0x1.9ff69b8b2895ap-55},
		{0x1.46fffe80475ep+00, -0x1.5c0b19bc2f254p-54},
		{0x1.48fffef6fc1e7p+00, 0x1.b4009f23a2a72p-54},
		{0x1.4afffe5bea704p+00, -0x1.4ffb7bf0d7d45p-54},
		{0x1.4d000171027dep+00, -0x1.9c06471dc6a3dp-54},
		{0x1.4f0000ff03ee2p+00, 0x1.77f890b85531cp-54},
		{0x1.5100012dc4bd1p+00, 0x1.004657166a436p-57},
		{0x1.530001605277ap+00, -0x1.6bfcece233209p-54},
		{0x1.54fffecdb704cp+00, -0x1.902720505a1d7p-55},
		{0x1.56fffef5f54a9p+00, 0x1.bbfe60ec96412p-54},
		{0x1.5900017e61012p+00, 0x1.87ec581afef9p-55},
		{0x1.5b00003c93e92p+00, -0x1.f41080abf0ccp-54},
		{0x1.5d0001d4919bcp+00, -0x1.8812afb254729p-54},
		{0x1.5efffe7b87a89p+00, -0x1.47eb780ed6904p-54},
	}
)
