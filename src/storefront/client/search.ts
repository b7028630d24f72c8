/**
 * The search island of `/` and `/search` (docs/storefront.md#search), bundled for the browser by
 * ../Island.ts: as a person types a name, the rows of the search stream (`GET /search/stream`, the
 * lines of the search API with the pages' prices: header, row…, primary_done, done) appear in
 * `#results`, worded by the server's own ../ResultRows.ts. Progressive enhancement only: without it
 * the form submits to the server-rendered `/search`, which is also the shareable URL the island
 * keeps in the address bar.
 *
 * Contract: one stream at a time (a new query aborts the previous one, which cancels its upstream
 * checks on the server), and a row never moves what is below it: the header's names are laid out
 * at once as placeholders, each answer fills its own in place, and a row keeps at least the
 * placeholder's height. Over the search limit it says how long to wait, then searches again by
 * itself if the box still holds that name.
 */
import { html } from "../../platform/http/SafeHtml.js"
import type { RowEvent, SearchEvent } from "../../search/Rows.js"
import { resultRow, waitWords } from "../ResultRows.js"

/** Typing pauses shorter than this are one query: a person's keystrokes come 50–200 ms apart. */
const DEBOUNCE_MS = 200
/** `label.tld` at least: anything less is still being typed (a submit lets the server say why). */
const looksLikeName = (q: string) => /^[^\s.]+(\.[^\s.]+)*\.[^\s.]{2,}$/u.test(q)

const placeholders = (domains: ReadonlyArray<string>) =>
  html`<ol class="results" aria-label="Results">${
    domains.map((d) =>
      html`<li data-pending="${d}"><span class="name">${d}</span><span class="status">Checking…</span><span class="next"></span></li>`
    )
  }</ol>`

/** The row of `domain` with the longest wording there is (premium: a long price and the longest next action). */
const tallestRow = (domain: string) =>
  resultRow({
    kind: "row",
    domain,
    domain_unicode: domain,
    state: "premium",
    state_label: "Premium",
    available: true,
    price: 99_999.99,
    listing: null,
    whois_summary: null,
    cached: false,
    meta: { source: "", checked_at: "", latency_ms: 0 }
  })

/**
 * Each placeholder gets the height of the tallest row its name could become at this width
 * (measured on an unseen copy in the same list, before the browser paints), so an answer never
 * makes its row grow and push down what is below.
 */
const reserve = (list: HTMLOListElement) => {
  for (const li of Array.from(list.querySelectorAll<HTMLElement>("li[data-pending]"))) {
    li.insertAdjacentHTML("afterend", tallestRow(li.dataset.pending ?? "").value)
    const probe = li.nextElementSibling as HTMLElement
    probe.setAttribute("aria-hidden", "true")
    li.style.minHeight = `${Math.max(li.offsetHeight, probe.offsetHeight)}px`
    probe.remove()
  }
}

/** Each line of an NDJSON body as it arrives, until it ends or `signal` aborts. */
const readEvents = async (
  body: NonNullable<Response["body"]>,
  signal: AbortSignal,
  onEvent: (event: SearchEvent) => void
) => {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done || signal.aborted) return
    const lines = (buffered + value).split("\n")
    buffered = lines.pop() ?? ""
    for (const line of lines) if (line !== "") onEvent(JSON.parse(line) as SearchEvent)
  }
}

/** A search's names as placeholders in `region`, busy until `done`, each as tall as its row can become. */
const layOut = (region: HTMLElement, domains: ReadonlyArray<string>) => {
  region.setAttribute("aria-busy", "true")
  region.innerHTML = placeholders(domains).value
  const list = region.querySelector("ol")
  if (list) reserve(list)
}

/** An answer's row in its placeholder's place (at least as tall), or at the end of the list without one. */
const fill = (region: HTMLElement, row: RowEvent) => {
  const pending = region.querySelector<HTMLElement>(`li[data-pending="${CSS.escape(row.domain)}"]`)
  const height = pending?.offsetHeight ?? 0
  if (pending) pending.outerHTML = resultRow(row).value
  else region.querySelector("ol")?.insertAdjacentHTML("beforeend", resultRow(row).value)
  const shownRow = region.querySelector<HTMLElement>(`li[data-domain="${CSS.escape(row.domain)}"]`)
  if (shownRow && height > 0) shownRow.style.minHeight = `${height}px`
}

/** The search form made live: what is typed or submitted is searched, its rows streamed into `region`. */
const island = (form: HTMLFormElement, input: HTMLInputElement, region: HTMLElement) => {
  /** The query whose answers the region shows (or is streaming). */
  let shown = new URLSearchParams(location.search).get("q")?.trim() ?? ""
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: AbortController | undefined
  let retry: ReturnType<typeof setTimeout> | undefined

  const say = (message: string) => {
    region.removeAttribute("aria-busy")
    region.innerHTML = html`<p class="error" role="alert">${message}</p>`.value
  }

  const onEvent = (event: SearchEvent) => {
    if (event.kind === "header") layOut(region, event.domains)
    else if (event.kind === "row") fill(region, event)
    else if (event.kind === "done") region.removeAttribute("aria-busy")
  }

  const stream = async (q: string, signal: AbortSignal) => {
    const res = await fetch(`/search/stream?q=${encodeURIComponent(q)}`, {
      headers: { accept: "application/x-ndjson" },
      signal
    })
    if (!res.ok || res.body === null) {
      shown = ""
      if (res.status === 429) {
        const seconds = Math.max(1, Number(res.headers.get("retry-after")) || 1)
        retry = setTimeout(() => input.value.trim() === q && run(q), seconds * 1000)
        return say(waitWords(seconds))
      }
      const body = await res.json().catch(() => null) as { error?: { message?: string } } | null
      return say(body?.error?.message ?? "We could not search just now: try again.")
    }
    await readEvents(res.body, signal, onEvent)
  }

  const run = (q: string) => {
    if (q === shown) return
    shown = q
    clearTimeout(retry)
    running?.abort()
    running = undefined
    history.replaceState(history.state, "", q === "" ? location.pathname : `/search?q=${encodeURIComponent(q)}`)
    const heading = document.getElementById("results-q")
    if (heading && q !== "") heading.textContent = q
    if (q === "") return void (region.innerHTML = "")
    const controller = new AbortController()
    running = controller
    stream(q, controller.signal).catch((e: unknown) => {
      if (controller.signal.aborted) return
      shown = ""
      say(
        e instanceof SyntaxError ? "The answer was cut short: try again." : "We could not search just now: try again."
      )
    })
  }

  input.addEventListener("input", () => {
    clearTimeout(timer)
    const q = input.value.trim()
    if (q === "" || looksLikeName(q)) timer = setTimeout(() => run(q), DEBOUNCE_MS)
  })
  form.addEventListener("submit", (e) => {
    const q = input.value.trim()
    if (!looksLikeName(q)) return // the server's page says what is wrong with it
    e.preventDefault()
    clearTimeout(timer)
    run(q)
  })
  // What was typed before this deferred script ran got no input event: search it now.
  const typed = input.value.trim()
  if (typed !== shown && looksLikeName(typed)) run(typed)
}

const form = document.querySelector<HTMLFormElement>("form.search")
const input = document.querySelector<HTMLInputElement>("form.search input[name=q]")
const region = document.getElementById("results")
if (form && input && region) island(form, input, region)
