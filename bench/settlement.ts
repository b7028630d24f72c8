/**
 * Settlement and transaction-totals throughput on the local PostgreSQL (in-process services):
 * - a settlement run over SETTLE_ORDERS (default 100,000) TRANSFER_COMPLETED orders of
 *   SETTLE_PARTNERS (200) partners: wall time, orders/s (target ≥ 5,000/s), peak RSS growth;
 * - the totals query of GET /transactions over TOTALS_ROWS (1,000,000) orders of one partner
 *   (target p50 ≤ 50 ms), read from the maintained per-day aggregate `partner_order_totals` (0105).
 *
 *   npm run bench -- settlement     (SETTLE_ORDERS, SETTLE_PARTNERS, TOTALS_ROWS override the sizes)
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import { randomBytes } from "node:crypto"
import * as Os from "node:os"
import pg from "pg"
import { CapabilitiesLive } from "../src/app/Layers.js"
import { DatabaseReadyLive } from "../src/app/Server.js"
import { MoneyRepo } from "../src/partner/ledger/Repo.js"
import { Settlement } from "../src/partner/ledger/Settlement.js"
import { AppConfigLive } from "../src/platform/Config.js"
import { privateDatabase, serviceEnv, writeResult } from "./lib.js"

const ORDERS = Number(process.env.SETTLE_ORDERS ?? 100_000)
const PARTNERS = Number(process.env.SETTLE_PARTNERS ?? 200)
const TOTALS_ROWS = Number(process.env.TOTALS_ROWS ?? 1_000_000)

const database = await privateDatabase(`bench_settle_${randomBytes(4).toString("hex")}`)
Object.assign(process.env, {
  ...serviceEnv,
  NODE_ENV: "test",
  DATABASE_URL: database.url,
  WORKERS: "false",
  DEMO_LISTINGS: "false",
  SANDBOX_INVENTORY: "false"
})

const Env = CapabilitiesLive.pipe(
  Layer.provideMerge(DatabaseReadyLive),
  Layer.provideMerge(AppConfigLive),
  Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
)

/** Orders and their recorded postings, written set-based (the same entries Books.recordSale writes). */
const seed = async (partnerCount: number, orderCount: number, status: string, prefix: string) => {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  await client.query(
    `insert into partners (id, name) select '${prefix}' || g, 'Bench ' || g from generate_series(1, ${partnerCount}) g`
  )
  await client.query(`
    insert into partner_orders (id, partner_id, credential_id, environment, listing_id, domain, status, sale_price_cents, currency,
      external_payment_ref, buyer, commission_bps, commission_cents, created_at, transfer_completed_at)
    select 'ord_${prefix}' || lpad(g::text, 9, '0'), '${prefix}' || (1 + g % ${partnerCount}), 'cred', 'live', 'lst_' || g,
      '${prefix}' || g || '.com', '${status}', 10000 + g % 5000, 'USD', 'pay', '{"email":"b@example.org"}', 1000, (10000 + g % 5000) / 10,
      now() - interval '20 days' + (g % 86400) * interval '1 second', now() - interval '10 days'
    from generate_series(1, ${orderCount}) g`)
  await client.query(`
    insert into ledger_transactions (id, natural_key, partner_id, environment, currency, kind, order_id)
    select 'ltx_' || id, 'order:' || id || ':recorded', partner_id, environment, currency, 'recorded', id from partner_orders where id like 'ord_${prefix}%'`)
  await client.query(`
    insert into ledger_entries (transaction_id, partner_id, environment, account, amount_cents, currency)
    select 'ltx_' || o.id, o.partner_id, o.environment, e.account, e.amount, o.currency
    from partner_orders o cross join lateral (values ('partner_receivable', o.sale_price_cents - o.commission_cents),
      ('commission_expense', o.commission_cents), ('sales_revenue', -o.sale_price_cents)) e(account, amount)
    where o.id like 'ord_${prefix}%'`)
  await client.query("analyze")
  await client.end()
}

const program = Effect.gen(function*() {
  const settlement = yield* Settlement
  const repo = yield* MoneyRepo
  yield* Effect.promise(() => seed(PARTNERS, ORDERS, "TRANSFER_COMPLETED", "ptnb"))
  // With --expose-gc (NODE_OPTIONS=--expose-gc), the live heap after a full collection too: RSS
  // alone cannot tell a leak from a heap V8 has not given back yet.
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  let peak = process.memoryUsage().rss
  const before = peak
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
  const t0 = performance.now()
  const loadBefore = Os.loadavg()[0]!
  const run = yield* settlement.run({ trigger: "bench" })
  const wall = (performance.now() - t0) / 1000
  clearInterval(sampler)
  const rssAfter = process.memoryUsage().rss
  gc?.()
  const heapAfter = process.memoryUsage().heapUsed

  yield* Effect.promise(() => seed(1, TOTALS_ROWS, "SETTLED", "ptnt"))
  const owner = { partnerId: "ptnt1", environment: "live" as const }
  const times: Array<number> = []
  for (let i = 0; i < 30; i++) {
    const s = performance.now()
    const totals = yield* repo.transactionTotals(
      owner,
      i % 2 === 0 ? {} : { from: new Date(Date.now() - 15 * 86_400_000) }
    )
    times.push(performance.now() - s)
    if (i === 0 && Number(totals.count) !== TOTALS_ROWS) throw new Error(`totals counted ${totals.count}`)
  }
  times.sort((a, b) => a - b)
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1)
  return [
    "# Settlement benchmark",
    "",
    `Local PostgreSQL, in-process services, ${
      new Date().toISOString()
    }; ${Os.cpus().length} cores, 1-minute load average ${loadBefore.toFixed(1)} when the run started, ${
      Os.loadavg()[0]!.toFixed(1)
    } at the end (other sessions share the machine).`,
    "",
    "| measure | result | target |",
    "|---|---|---|",
    `| settlement run: ${run.orders_settled.toLocaleString("en")} orders, ${run.statements.length} statements | ${
      wall.toFixed(2)
    } s, ${Math.round(run.orders_settled / wall).toLocaleString("en")} orders/s | ≥ 5,000 orders/s |`,
    `| RSS during the run: before, peak, after | ${(before / 1048576).toFixed(0)} / ${(peak / 1048576).toFixed(0)} / ${
      (rssAfter / 1048576).toFixed(0)
    } MiB (peak growth ${((peak - before) / 1048576).toFixed(0)} MiB) | flat |`,
    ...(gc
      ? [
        `| live heap after a full GC: before / after the run | ${(heapBefore / 1048576).toFixed(0)} / ${
          (heapAfter / 1048576).toFixed(0)
        } MiB | flat |`
      ]
      : []),
    `| GET /transactions totals over ${
      TOTALS_ROWS.toLocaleString("en")
    } rows of one partner (the repository's totals query; no filter / from 15 days ago, alternating) | p50 ${
      p(0.5)
    } ms, p95 ${p(0.95)} ms | p50 ≤ 50 ms |`,
    ""
  ].join("\n")
})

try {
  const markdown = await Effect.runPromise(Effect.scoped(Effect.provide(program, Env)) as Effect.Effect<string>)
  writeResult("settlement", markdown)
} finally {
  await database.drop()
}
