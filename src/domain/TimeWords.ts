/**
 * Times and money as a reader says them on a page (pure): "27 Nov 2026, 16:18 UTC" rather than an
 * ISO timestamp, "$2,500.00" with its currency. Pages show these; APIs keep RFC 3339 and cents.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const

const two = (n: number) => String(n).padStart(2, "0")

/** "27 Nov 2026, 16:18 UTC" (always UTC: the page cannot know the reader's zone without script). */
export const timeInWords = (d: Date): string =>
  `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${
    two(d.getUTCMinutes())
  } UTC`

/** "27 Nov 2026" */
export const dayInWords = (d: Date): string => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`

/** "$2,500.00" for USD, "€12.00" for EUR…; an unknown currency code as "12.00 XYZ". */
export const moneyInWords = (cents: number, currency: string): string => {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(cents / 100)
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`
  }
}
