/**
 * The `html` tagged template that every page is built with: it escapes by default. Pure (no
 * Node or Effect import), so the same module renders markup on the server and in the storefront's
 * browser island (src/storefront/client/), which is how both word a search row the same way.
 */

export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Markup that is already safe (the output of `html`): interpolated as is, never escaped again. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}

type HtmlValue = SafeHtml | string | number | null | undefined | false | ReadonlyArray<HtmlValue>

const renderValue = (v: HtmlValue): string =>
  v === null || v === undefined || v === false
    ? ""
    : v instanceof SafeHtml
    ? v.value
    : Array.isArray(v)
    ? v.map(renderValue).join("")
    : escapeHtml(String(v))

/**
 * A tagged template that escapes by default: every interpolated string or number is escaped,
 * arrays are joined, `null`/`undefined`/`false` render nothing, and only another `html` result
 * goes in as markup. Pages built with it never concatenate untrusted text into HTML.
 */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<HtmlValue>): SafeHtml =>
  new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? renderValue(values[i]!) : ""), ""))
