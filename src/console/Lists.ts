/**
 * What the console's business lists share (orders, checkout sessions, brokerage, money): the URL's
 * filters read once at the edge, where a value the page cannot use is a 400 page naming the field
 * (never a 500, never silently ignored); the environment (sandbox or live) in the URL; the house
 * page cursor (platform/http/PageCursor.ts), bound to the person, the partner, the environment and
 * the filters; and the shared pieces of the pages (environment picker, filter fields, `Next page`).
 */
import { Effect } from "effect"
import type { PartnerEnvironment } from "../partner/Auth.js"
import { dateWindow } from "../partner/Common.js"
import { html, type SafeHtml } from "../platform/http/Html.js"
import { pageCursor, type PagedList } from "../platform/http/PageCursor.js"
import type { ServiceSecretShape } from "../platform/ServiceSecret.js"
import type { Refusal } from "./Door.js"
import { consolePath } from "./Pages.js"
import type { Session } from "./Views.js"

/** Rows per page unless the URL's `limit` (1–100) says otherwise. */
export const PAGE_SIZE = 25

const ENVIRONMENTS: ReadonlyArray<PartnerEnvironment> = ["sandbox", "live"]

/** A value of the URL the page cannot use: the 400 page, with the field named first. */
export const badQuery = (message: string): Refusal => ({ _tag: "BadQuery", message })

/** `environment` as asked when it names one, else undefined (the section's own choice). */
export const askedEnvironment = (asked: string | undefined): PartnerEnvironment | undefined =>
  asked === "sandbox" || asked === "live" ? asked : undefined

/** `environment` from the URL, else the partner's default; any other value refused. */
export const environmentOf = (
  asked: string | undefined,
  fallback: PartnerEnvironment
): Effect.Effect<PartnerEnvironment, Refusal> => {
  if (asked === undefined || asked === "") return Effect.succeed(fallback)
  const environment = askedEnvironment(asked)
  return environment === undefined
    ? Effect.fail(badQuery("environment: must be sandbox or live"))
    : Effect.succeed(environment)
}

/** An optional value of a fixed set (an empty field of the filter form: none). */
export const oneOf = <A extends string>(field: string, values: ReadonlyArray<A>, v: string | undefined) =>
  v === undefined || v === ""
    ? Effect.succeed(undefined)
    : (values as ReadonlyArray<string>).includes(v)
    ? Effect.succeed(v as A)
    : Effect.fail(badQuery(`${field}: must be one of ${values.join(", ")}`))

/** `limit`: 1–100, default PAGE_SIZE. */
export const limitOf = (v: string | undefined) => {
  if (v === undefined || v === "") return Effect.succeed(PAGE_SIZE)
  const n = Number(v)
  return /^\d+$/.test(v) && n >= 1 && n <= 100
    ? Effect.succeed(n)
    : Effect.fail(badQuery("limit: must be a whole number from 1 to 100"))
}

/** `from`/`to` as the signed API reads them (RFC 3339 or YYYY-MM-DD, from not after to). */
export const windowOf = (from: string | undefined, to: string | undefined) =>
  dateWindow(from === "" ? undefined : from, to === "" ? undefined : to)

/**
 * The cursors of one console list: bound to the signed-in person (the holder), the partner, the
 * environment and the filters; a bad one is the list's `InvalidCursor` (a 400 page).
 */
export const listCursor = (
  secrets: ServiceSecretShape,
  list: PagedList<string>,
  session: Session,
  scope: { readonly partnerId: string; readonly environment: PartnerEnvironment; readonly filters: unknown }
) => pageCursor(secrets, list, session.user.id, [scope.partnerId, scope.environment, scope.filters])

/** A console path with its query (empty values left out), for links that keep the filters. */
export const pathWith = <P extends { readonly [K in keyof P]: string | undefined | null }>(path: string, params: P) => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries<string | undefined | null>(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, v)
  }
  const s = q.toString()
  return s === "" ? path : `${path}?${s}`
}

/** A console section's page for the partner and environment. */
export const sectionPath = (path: string, partnerId: string, environment: string) =>
  `${consolePath(path, partnerId)}&environment=${encodeURIComponent(environment)}`

/** The environments to choose between (two or more; one: nothing to choose), the current one marked. */
export const environmentChoice = (
  environments: ReadonlyArray<string>,
  current: string | null,
  pathOf: (environment: string) => string
) =>
  environments.length < 2 ?
    "" :
    html`<p>Environment: ${
      environments.map((e, i) =>
        html`${i > 0 ? " · " : ""}${
          e === current ? html`<strong aria-current="page">${e}</strong>` : html`<a href="${pathOf(e)}">${e}</a>`
        }`
      )
    }</p>`

/** Sandbox · live, the current one marked (the business lists: both may always be read). */
export const environmentPicker = (path: string, partnerId: string, current: PartnerEnvironment) =>
  environmentChoice(ENVIRONMENTS, current, (e) => pathWith(path, { partner: partnerId, environment: e }))

/** A `<select>` of a filter: "Any" and each value, the current one selected. */
export const selectField = (
  id: string,
  name: string,
  label: string,
  values: ReadonlyArray<string>,
  current: string | undefined
) =>
  html`<div><label for="${id}">${label}</label><select id="${id}" name="${name}"><option value="">Any</option>${
    values.map((v) => html`<option value="${v}"${current === v ? html` selected` : ""}>${v}</option>`)
  }</select></div>`

/** A text filter (a domain, a date). */
export const textField = (id: string, name: string, label: string, current: string | undefined, hint: string) =>
  html`<div><label for="${id}">${label}</label><input id="${id}" name="${name}" value="${
    current ?? ""
  }" placeholder="${hint}" autocomplete="off"></div>`

/** The filter form: a GET to the page itself, the partner and environment kept. */
export const filterForm = (
  path: string,
  label: string,
  keep: { readonly partnerId: string; readonly environment: PartnerEnvironment },
  fields: ReadonlyArray<SafeHtml>
) =>
  html`<form class="filters" method="get" action="${path}" role="search" aria-label="${label}">
<input type="hidden" name="partner" value="${keep.partnerId}">
<input type="hidden" name="environment" value="${keep.environment}">
${fields}
<div class="actions"><button type="submit" class="secondary">Filter</button></div>
</form>`

/** The rows, or a sentence saying why there are none yet. */
export const rowsOr = <A>(label: string, items: ReadonlyArray<A>, item: (a: A) => SafeHtml, none: SafeHtml) =>
  items.length === 0 ?
    html`<p data-empty>${none}</p>` :
    html`<ol class="results" aria-label="${label}">${items.map(item)}</ol>`

/** `Next page`, keeping the filters (none when this is the last page). */
export const nextPage = <P extends { readonly [K in keyof P]: string | undefined | null }>(
  path: string,
  params: P,
  cursor: string | null
) => cursor === null ? "" : html`<p><a href="${pathWith(path, { ...params, cursor })}" rel="next">Next page</a></p>`
