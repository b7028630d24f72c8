/**
 * The bulk job island of `/account/jobs/{id}` (docs/storefront.md#account), bundled for the
 * browser by ../Island.ts: it polls GET /api/domains/bulk/{id} (the session cookie goes along,
 * same origin) and updates the status, the progress bar, the counts and each name's row in place,
 * worded by ../BulkWords.ts as the server words them. Stops when the job is done. Without it the
 * page refreshes itself (a `<noscript>` refresh) until the job is done.
 */
import { countsInWords, ITEM_WORDS, type ItemStatus, JOB_WORDS, type JobStatus } from "../BulkWords.js"

const POLL_MS = 1_000

interface Status {
  readonly status: JobStatus
  readonly total: number
  readonly succeeded: number
  readonly failed: number
  readonly items: ReadonlyArray<{ readonly domain: string; readonly status: ItemStatus; readonly error: string | null }>
}

const root = document.querySelector<HTMLElement>("[data-job-id]")

const show = (s: Status) => {
  const text = (selector: string, value: string) => {
    const el = root!.querySelector(selector)
    if (el !== null && el.textContent !== value) el.textContent = value
  }
  text("[data-field=status]", JOB_WORDS[s.status])
  text("[data-field=counts]", countsInWords(s))
  const bar = root!.querySelector<HTMLProgressElement>("progress")
  if (bar !== null) {
    bar.max = Math.max(1, s.total)
    bar.value = s.succeeded + s.failed
  }
  for (const item of s.items) {
    const row = root!.querySelector(`li[data-domain="${CSS.escape(item.domain)}"]`)
    if (row === null) continue
    const status = row.querySelector(".status")
    if (status !== null) status.textContent = ITEM_WORDS[item.status]
    const note = row.querySelector(".next")
    if (note !== null) note.textContent = item.error ?? ""
  }
  root!.dataset.status = s.status
}

const poll = async (id: string): Promise<void> => {
  try {
    const res = await fetch(`/api/domains/bulk/${encodeURIComponent(id)}`, { headers: { accept: "application/json" } })
    if (res.ok) {
      const s = await res.json() as Status
      show(s)
      if (s.status === "done") return
    } else if (res.status < 500 && res.status !== 429) {
      return // signed out or not theirs: polling again would not change that
    }
  } catch {
    // A dropped poll is retried at the next tick; the page still shows the last answer.
  }
  setTimeout(() => void poll(id), POLL_MS)
}

if (root !== null && root.dataset.status !== "done") void poll(root.dataset.jobId!)
