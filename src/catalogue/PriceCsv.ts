/**
 * The price-list CSV format of `npm run cli -- prices import FILE`:
 *
 *     tld,op,price_cents
 *     com,register,1099
 *
 * Pure parsing: every bad line is reported with its number; nothing is half-imported.
 */
export const PRICE_OPS = ["register", "renew", "transfer", "restore"] as const
export type PriceOp = (typeof PRICE_OPS)[number]

export interface PriceRow {
  readonly tld: string
  readonly op: PriceOp
  readonly priceCents: number
}

const TLD = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

export const normalizeTld = (input: string): string =>
  input.trim().toLowerCase().replace(/^\.+/, "").replace(/\.+$/, "")

export const isTld = (s: string) => TLD.test(s) && s.length <= 253

export const parsePriceCsv = (text: string): { rows: Array<PriceRow>; errors: Array<string> } => {
  const rows: Array<PriceRow> = []
  const errors: Array<string> = []
  const seen = new Set<string>()
  const lines = text.split(/\r?\n/)
  lines.forEach((raw, index) => {
    const line = raw.trim()
    const n = index + 1
    if (line === "" || line.startsWith("#")) return
    const cells = line.split(",").map((c) => c.trim())
    if (n === 1 && cells[0]?.toLowerCase() === "tld") {
      if (cells.join(",").toLowerCase() !== "tld,op,price_cents") {
        errors.push(`line 1: header must be tld,op,price_cents`)
      }
      return
    }
    if (cells.length !== 3) return void errors.push(`line ${n}: expected 3 columns, got ${cells.length}`)
    const tld = normalizeTld(cells[0])
    const op = cells[1].toLowerCase()
    if (!isTld(tld)) return void errors.push(`line ${n}: invalid tld "${cells[0]}"`)
    if (!(PRICE_OPS as ReadonlyArray<string>).includes(op)) {
      return void errors.push(`line ${n}: op must be one of ${PRICE_OPS.join("|")}, got "${cells[1]}"`)
    }
    if (!/^\d{1,12}$/.test(cells[2])) {
      return void errors.push(`line ${n}: price_cents must be a non-negative integer, got "${cells[2]}"`)
    }
    const key = `${tld}/${op}`
    if (seen.has(key)) return void errors.push(`line ${n}: duplicate ${key}`)
    seen.add(key)
    rows.push({ tld, op: op as PriceOp, priceCents: Number(cells[2]) })
  })
  return { rows, errors }
}
