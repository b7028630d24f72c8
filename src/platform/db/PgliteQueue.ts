/**
 * A replacement for `@electric-sql/pglite-socket`'s query queue that keeps each connection's
 * protocol conversation together.
 *
 * PGlite is one backend session shared by every socket connection. The stock queue interleaves
 * single protocol messages of different connections, so under concurrency connection A's
 * Parse/Bind/Execute can be split by connection B's (seen as "bind message supplies 3
 * parameters, but prepared statement requires 4", and as hung requests). Here a connection that
 * starts an extended-protocol exchange (Parse, Bind, Describe, Execute, Close, Flush) owns the
 * session until its Sync, and for as long as it holds an open transaction; other connections'
 * messages wait their turn.
 */
import type { PGlite } from "@electric-sql/pglite"

interface Item {
  readonly handlerId: number
  readonly message: Uint8Array
  readonly onData: (data: Uint8Array) => void
  readonly resolve: (bytes: number) => void
  readonly reject: (error: unknown) => void
}

const EXTENDED = new Set(["P", "B", "D", "E", "C", "H"].map((c) => c.charCodeAt(0)))

export class GroupedQueryQueue {
  private items: Array<Item> = []
  private owner: number | null = null
  private processing = false

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.items.push({ handlerId, message, onData, resolve, reject })
      void this.process()
    })
  }

  private next(): Item | undefined {
    const i = this.owner === null ? 0 : this.items.findIndex((it) => it.handlerId === this.owner)
    return i === -1 || this.items.length === 0 ? undefined : this.items.splice(i, 1)[0]
  }

  private async process(): Promise<void> {
    if (this.processing) return
    this.processing = true
    try {
      for (let item = this.next(); item !== undefined; item = this.next()) {
        let bytes = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item!.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length
                item!.onData(data)
              }
            })
          )
        } catch (error) {
          this.release(item.handlerId, item.message)
          item.reject(error)
          continue
        }
        this.release(item.handlerId, item.message)
        item.resolve(bytes)
      }
    } finally {
      this.processing = false
    }
  }

  private release(handlerId: number, message: Uint8Array) {
    const type = message[0]
    this.owner = EXTENDED.has(type) || this.db.isInTransaction() ? handlerId : null
  }

  getQueueLength() {
    return this.items.length
  }

  clearQueueForHandler(handlerId: number) {
    this.items = this.items.filter((it) => {
      if (it.handlerId !== handlerId) return true
      it.reject(new Error("Handler disconnected"))
      return false
    })
  }

  async clearTransactionIfNeeded(handlerId: number) {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => undefined)
    this.owner = null
    await this.process()
  }
}
