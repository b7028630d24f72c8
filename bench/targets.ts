/**
 * The performance targets (issue 35, the second pass; issue 18's first targets were looser), read
 * by each benchmark's page and by REPORT.md, so a verdict never checks a figure against an older
 * target than the one the report prints.
 */
export const TARGETS = {
  /** signed `GET /api/partner/v1/availability` ÷ unsigned `GET /api/pricing/tld`, same run */
  signedRatio: 0.8,
  /** `GET /api/pricing/tld` ÷ the minimal Effect HttpApi server, same run */
  pricingRatio: 0.75,
  /** signed `POST /api/partner/v1/orders`, new domain and key each */
  ordersRps: 600,
  ordersP99Ms: 150,
  /** service CPU per 10-name search, one at a time */
  searchCpuMs: 3,
  /** 50 concurrent searches, primary row p50 (upstream answers in 50 ms) */
  concurrentPrimaryP50Ms: 100,
  /** RSS of one service process on PostgreSQL: idle, and after the mixed requests */
  rssIdleMb: 120,
  rssLoadedMb: 180
} as const
