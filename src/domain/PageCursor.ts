/**
 * The page cursor of every paged list (pure). A cursor is the keyset position after the last row
 * of a page, sealed together with the scope it was issued for: the list, the caller it was issued
 * to (null for a public list) and a digest of the filters (and sort). The seal is authenticated
 * encryption under SERVICE_SECRET (the `Sealer` the edge passes, platform/http/PageCursor.ts), so
 * a client can neither read a position (a price-sort cursor holds a price), forge or alter one,
 * nor use one with another list, another caller, other filters, or on another deployment.
 *
 * Payload (inside the seal): `{"v":2,"l":"<list>","h":"<holder>"|null,"f":"<filters digest>","p":<position>}`.
 *
 * The contract: `decode(scope, encode(scope, p))` is `p`; any other token is refused. A token that
 * is ours, for this list and caller, but for other filters is `other_query` (the client can fix
 * its query); everything else is `malformed`. Property-tested in test/domain/page-cursor.test.ts.
 */
import { Either, Option, Schema } from "effect"
import { createHash } from "node:crypto"

/** What a cursor is bound to. `filters` is JSON: put them in a fixed order (an array). */
export interface CursorScope {
  /** The list's name (platform/http/PageCursor.ts `PAGED_LISTS`). */
  readonly list: string
  /** The caller it was issued to (a credential id), or null when any caller may follow it. */
  readonly holder: string | null
  readonly filters: unknown
}

/** Authenticated encryption of a text: `open` gives None for anything `seal` did not make. */
export interface Sealer {
  readonly seal: (plaintext: string) => string
  readonly open: (token: string) => Option.Option<string>
}

export type CursorProblem = "malformed" | "other_query"

/** No cursor we issue comes near this; longer input is refused before it is opened. */
export const MAX_CURSOR_LENGTH = 2048

/** Digest of the filters (hex, 128 bits): equal for equal JSON. */
export const filtersDigest = (filters: unknown): string =>
  createHash("sha256").update(JSON.stringify(filters) ?? "null").digest("hex").slice(0, 32)

const Payload = Schema.Struct({
  v: Schema.Literal(2),
  l: Schema.String,
  h: Schema.NullOr(Schema.String),
  f: Schema.String,
  p: Schema.Unknown
})

const parseJson = Schema.decodeUnknownEither(Schema.parseJson(Payload))

/** The cursor of the position after a page, in this scope. */
export const encodeCursor = <P, I>(
  sealer: Sealer,
  position: Schema.Schema<P, I>,
  scope: CursorScope,
  after: P
): string =>
  sealer.seal(JSON.stringify({
    v: 2,
    l: scope.list,
    h: scope.holder,
    f: filtersDigest(scope.filters),
    p: Schema.encodeSync(position)(after)
  }))

/** The position a cursor of exactly this scope holds, or why the token is refused. */
export const decodeCursor = <P, I>(
  sealer: Sealer,
  position: Schema.Schema<P, I>,
  scope: CursorScope,
  token: string
): Either.Either<P, CursorProblem> => {
  if (token.length === 0 || token.length > MAX_CURSOR_LENGTH) return Either.left("malformed")
  const opened = sealer.open(token)
  if (Option.isNone(opened)) return Either.left("malformed")
  const payload = parseJson(opened.value)
  if (Either.isLeft(payload)) return Either.left("malformed")
  const { f, h, l, p } = payload.right
  if (l !== scope.list || h !== scope.holder) return Either.left("malformed")
  if (f !== filtersDigest(scope.filters)) return Either.left("other_query")
  return Either.mapLeft(Schema.decodeUnknownEither(position)(p), (): CursorProblem => "malformed")
}
