// Preloaded into a replica process (NODE_OPTIONS=--import): its clock runs ATTACK_CLOCK_SKEW_MS ahead.
const skew = Number(process.env.ATTACK_CLOCK_SKEW_MS ?? 30000);
const RealDate = Date;
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + skew);
    else super(...args);
  }
  static now() {
    return RealDate.now() + skew;
  }
}
globalThis.Date = SkewedDate;
