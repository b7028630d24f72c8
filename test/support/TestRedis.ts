/**
 * The Redis the tests may use (`TEST_REDIS_URL`, else database 15 of the local server), and
 * whether it answers: tests that need it skip with a message when it does not.
 */
import { Redis } from "ioredis"

export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379/15"

/** True when `REDIS_URL` answers a PING. */
export const redisAnswers = async (): Promise<boolean> => {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  try {
    await r.connect()
    await r.ping()
    return true
  } catch {
    return false
  } finally {
    r.disconnect()
  }
}
