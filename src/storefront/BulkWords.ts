/**
 * How a bulk job's progress reads (pure, no imports): the server-rendered job page and the
 * browser island (client/bulk.ts) word it with these, so the live page reads as the refreshed one.
 */

export type JobStatus = "queued" | "running" | "done"
export type ItemStatus = "queued" | "running" | "succeeded" | "failed"

export const JOB_WORDS: Readonly<Record<JobStatus, string>> = {
  queued: "Waiting to start",
  running: "In progress",
  done: "Done"
}

export const ITEM_WORDS: Readonly<Record<ItemStatus, string>> = {
  queued: "Waiting",
  running: "Working",
  succeeded: "Done",
  failed: "Failed"
}

/** "1 of 3 names finished, 0 failed" */
export const countsInWords = (c: { readonly total: number; readonly succeeded: number; readonly failed: number }) =>
  `${c.succeeded + c.failed} of ${c.total} ${c.total === 1 ? "name" : "names"} finished, ${c.failed} failed`

/** What each bulk action is called on the page. */
export const OP_WORDS: Readonly<Record<string, string>> = {
  lock: "Lock",
  unlock: "Unlock",
  setNameservers: "Set nameservers",
  setFolder: "Set folder",
  setContacts: "Set contacts",
  setAutoRenew: "Auto-renew",
  renew: "Renew",
  restore: "Restore"
}

export const opInWords = (op: string) => OP_WORDS[op] ?? op
