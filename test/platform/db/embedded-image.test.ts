/**
 * The embedded database started from a data directory image (the tests' migrated template, the
 * pristine cluster): every database loaded from one image is its own (the image's bytes are shared,
 * never written), and the embedded server runs with its small buffer cache. Embedded database only
 * (skipped when DATABASE_URL is set).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { DataDirImage, startEmbedded } from "../../../src/platform/db/Database.js"

const embeddedOnly = process.env.DATABASE_URL ? describe.skip : describe

embeddedOnly("an embedded database from an image", () => {
  it.scopedLive(
    "two databases from one image are independent, and the image is unchanged",
    () =>
      Effect.gen(function*() {
        const first = yield* startEmbedded(":memory:")
        yield* Effect.promise(() =>
          first.db.exec("create table kept (v text); insert into kept values ('in the image')")
        )
        const image = yield* Effect.promise(() => DataDirImage.dump(first.db))
        const before = Buffer.from(image.data).toString("base64")

        const a = yield* startEmbedded(":memory:", { image })
        const b = yield* startEmbedded(":memory:", { image })
        yield* Effect.promise(() => a.db.exec("insert into kept values ('only in a'); create table a_only (v int)"))
        const inB = yield* Effect.promise(() => b.db.query<{ v: string }>("select v from kept order by v"))
        expect(inB.rows.map((r) => r.v)).toEqual(["in the image"])
        const tables = yield* Effect.promise(() => b.db.query("select 1 from pg_tables where tablename = 'a_only'"))
        expect(tables.rows).toEqual([])
        const inA = yield* Effect.promise(() => a.db.query<{ v: string }>("select v from kept order by v"))
        expect(inA.rows.map((r) => r.v)).toEqual(["in the image", "only in a"])
        expect(Buffer.from(image.data).toString("base64")).toBe(before)

        const buffers = yield* Effect.promise(() => b.db.query<{ shared_buffers: string }>("show shared_buffers"))
        expect(buffers.rows[0]!.shared_buffers).toBe("16MB")
      }),
    120_000
  )

  it("an image's bytes are handed over whole, or copied when they are a view of a larger buffer", async () => {
    const whole = new Uint8Array([1, 2, 3])
    expect(await new DataDirImage(whole).arrayBuffer()).toBe(whole.buffer)
    const view = new Uint8Array([0, 1, 2, 3, 4]).subarray(1, 4)
    expect([...new Uint8Array(await new DataDirImage(view).arrayBuffer())]).toEqual([1, 2, 3])
  })
})
