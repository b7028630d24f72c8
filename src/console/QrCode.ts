/**
 * A referral link's QR code as inline SVG, drawn on the server by the `qrcode` library
 * (`toString({ type: "svg" })`: black modules on a white ground with a quiet zone). Contract: the
 * markup is the library's own, for a URL this service built (its base URL and a base62 code), so it
 * goes into the page as is; the accessible name sits on its wrapper, escaped like any text.
 */
import { Effect, Option } from "effect"
import QRCode from "qrcode"
import { html, SafeHtml } from "../platform/http/Html.js"

/** The SVG of `url`'s QR code; none if the library refuses it (the page then shows the URL only). */
export const qrSvg = (url: string): Effect.Effect<Option.Option<string>> =>
  Effect.tryPromise(() => QRCode.toString(url, { type: "svg", margin: 2, errorCorrectionLevel: "M" })).pipe(
    Effect.option
  )

/** The code in a named image wrapper (`role="img"`: a screen reader hears the name, not the drawing). */
export const qrFigure = (url: string, svg: string): SafeHtml =>
  html`<div class="qr" role="img" aria-label="${`QR code of ${url}`}">${new SafeHtml(svg)}</div>`
