/**
 * CSV (RFC 4180) for the money exports. Pure.
 *
 * Contract: one header row, then one row per record, CRLF line ends; a field is quoted when it
 * holds a comma, a quote, CR or LF (quotes doubled). A text field that a spreadsheet would run as
 * a formula (it starts with `=`, `+`, `-`, `@`, TAB or CR) is prefixed with `'` (OWASP's guard
 * against CSV injection); numbers are written as they are, so a negative amount stays a number.
 */

export type Cell = string | number | boolean | null | undefined

const FORMULA_START = /^[=+\-@\t\r]/

/** One field as written: numbers plain, text guarded and quoted when needed. */
export const field = (value: Cell): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`)
    return String(value)
  }
  if (typeof value === "boolean") return value ? "true" : "false"
  const guarded = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, "\"\"")}"` : guarded
}

/** The document: the header row, then the rows (each with as many cells as the header). */
export const csv = (header: ReadonlyArray<string>, rows: Iterable<ReadonlyArray<Cell>>): string => {
  const lines = [header.map(field).join(",")]
  for (const row of rows) {
    if (row.length !== header.length) {
      throw new RangeError(`a row of ${row.length} cells under ${header.length} columns`)
    }
    lines.push(row.map(field).join(","))
  }
  return lines.join("\r\n") + "\r\n"
}
