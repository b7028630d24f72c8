/** The batch capability as one layer: its handlers, which call each operation's service directly. */
import { BatchHttpLive } from "./Http.js"

export const BatchLive = BatchHttpLive
