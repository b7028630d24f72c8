/** Handlers of the free tools: quota, then the Tools service; async tools answer 202 + Location. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Api } from "../app/Api.js"
import { AppConfig } from "../platform/Config.js"
import { addResponseHeaders } from "../platform/http/ResponseHeaders.js"
import type { JobState } from "../platform/jobs/Jobs.js"
import { UnknownTool } from "./Errors.js"
import { type AsyncTool, Tools } from "./Tools.js"

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

export const ToolsHttpLive = HttpApiBuilder.group(Api, "tools", (handlers) =>
  Effect.gen(function*() {
    const tools = yield* Tools
    const config = yield* AppConfig

    const inline = <E, R>(work: Effect.Effect<{ cached: boolean; result: unknown }, E, R>) =>
      Effect.map(work, ({ cached, result }) => ({ ok: true, cached, result: result as Record<string, unknown> }))

    const accepted = <E>(slug: AsyncTool, enqueue: Effect.Effect<JobState, E>) =>
      Effect.gen(function*() {
        const job = yield* enqueue
        const path = `/api/tools/${slug}/status/${job.id}`
        yield* addResponseHeaders({ location: path })
        return {
          ok: true,
          cached: false,
          result: { mode: "async", jobId: job.id, status_url: `${config.baseUrl}${path}` }
        } as const
      })

    return handlers
      .handle(
        "idnConvert",
        ({ payload }) => inline(tools.idn(payload))
      )
      .handle("dnsLookup", ({ payload }) => inline(tools.dns(payload)))
      .handle(
        "domainSuggest",
        ({ payload }) => inline(tools.suggest(payload))
      )
      .handle("appraise", ({ payload }) => inline(tools.appraise(payload)))
      .handle("siteCheck", ({ payload }) => accepted("site-check", tools.enqueueSiteCheck(payload)))
      .handle("bulkCheck", ({ payload }) => accepted("bulk-check", tools.enqueueBulkCheck(payload)))
      .handle("unknownTool", ({ path }) => Effect.fail(UnknownTool.of(path.slug)))
      .handle("toolJobStatus", ({ path }) =>
        Effect.gen(function*() {
          const job = yield* tools.status(path.slug, path.jobId)
          return statusBody(path.slug, job)
        }))
  }))

const statusBody = (slug: string, j: JobState) => ({
  jobId: j.id,
  tool: slug,
  status: j.status,
  result: (j.status === "done" && typeof j.result === "object" && j.result !== null ? j.result : {}) as Record<
    string,
    unknown
  >,
  ...(j.status === "failed" ? { error: j.error ?? "failed" } : {}),
  progress: j.progress ?? null,
  attempts: j.attempts,
  created_at: iso(j.createdAt)!,
  started_at: iso(j.startedAt),
  finished_at: iso(j.finishedAt)
})
