/**
 * Money as integer minor units (cents) of one currency. Pure.
 *
 * Contract: an amount is always a safe integer of cents; arithmetic never mixes currencies
 * (mixing is a defect, not a rounding question); commission is rounded down to the cent, so
 * `commission + (sale - commission) = sale` exactly and the partner is never charged a fraction.
 * Every amount the service ACCEPTS (HTTP, CLI) is `AmountCents`: an integer in 0…MAX_AMOUNT_CENTS
 * (10^12 cents, $10,000,000,000.00), so sums of up to ~9,000 of them stay exact in a double and
 * totals can always be encoded; a larger number is a typo, refused as `validation_error`.
 */
import { Schema } from "effect"

export interface Money {
  readonly cents: number
  readonly currency: string
}

export const isCents = (n: number): boolean => Number.isSafeInteger(n)

/** The largest amount accepted anywhere: 10^12 cents ($10,000,000,000.00). */
export const MAX_AMOUNT_CENTS = 1_000_000_000_000

export const isAmountCents = (n: number): boolean => Number.isSafeInteger(n) && n >= 0 && n <= MAX_AMOUNT_CENTS

/** Every money amount accepted anywhere (body, query, CLI): integer cents in 0…10^12. */
export const AmountCents = Schema.Int.pipe(
  Schema.between(0, MAX_AMOUNT_CENTS, {
    message: () => `Expected integer USD cents between 0 and ${MAX_AMOUNT_CENTS}`
  })
).annotations({ description: `Integer USD cents, 0 to ${MAX_AMOUNT_CENTS}` })

/** The same bound for an amount given as a query parameter (a string of digits). */
export const AmountCentsFromString = Schema.compose(Schema.NumberFromString, AmountCents)

/** A positive amount (a price, a budget, a receipt): 1…10^12 cents. */
export const PositiveAmountCents = AmountCents.pipe(
  Schema.filter((n) => n > 0 || "Expected a positive amount of cents")
).annotations({ description: `Integer USD cents, 1 to ${MAX_AMOUNT_CENTS}` })

export const money = (cents: number, currency: string): Money => {
  if (!isCents(cents)) throw new RangeError(`not an integer number of cents: ${cents}`)
  if (!/^[A-Z]{3}$/.test(currency)) throw new RangeError(`not an ISO 4217 currency: ${currency}`)
  return { cents, currency }
}

const same = (a: Money, b: Money) => {
  if (a.currency !== b.currency) throw new RangeError(`cannot combine ${a.currency} with ${b.currency}`)
}

export const add = (a: Money, b: Money): Money => {
  same(a, b)
  return money(a.cents + b.cents, a.currency)
}

export const subtract = (a: Money, b: Money): Money => {
  same(a, b)
  return money(a.cents - b.cents, a.currency)
}

export const negate = (a: Money): Money => money(a.cents === 0 ? 0 : -a.cents, a.currency)

/** Sum of cents (all the same currency by construction of the caller). */
export const sumCents = (amounts: ReadonlyArray<number>): number => {
  let total = 0
  for (const a of amounts) total += a
  if (!isCents(total)) throw new RangeError("sum exceeds the safe integer range")
  return total
}

/** Basis points: 1000 = 10 %. */
export const MAX_BPS = 10_000

/**
 * The partner's commission on a sale: ⌊sale × bps / 10 000⌋, computed exactly (BigInt), the
 * same formula the database uses when it freezes the rate on an order.
 */
export const commissionOf = (saleCents: number, bps: number): number => {
  if (!isCents(saleCents) || saleCents < 0) throw new RangeError(`sale must be non-negative cents: ${saleCents}`)
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_BPS) throw new RangeError(`bps must be 0..${MAX_BPS}: ${bps}`)
  return Number((BigInt(saleCents) * BigInt(bps)) / BigInt(MAX_BPS))
}

/** What a partner that collected the sale owes the service: sale − commission. */
export const owedOf = (saleCents: number, bps: number): number => saleCents - commissionOf(saleCents, bps)

/** "$1,234.56" style text for humans (CLI); never parsed back. */
export const format = (m: Money): string => {
  const sign = m.cents < 0 ? "-" : ""
  const abs = Math.abs(m.cents)
  const units = Math.floor(abs / 100).toLocaleString("en-US")
  return `${sign}${units}.${String(abs % 100).padStart(2, "0")} ${m.currency}`
}
