/**
 * Preloaded into a child process (`node --import tsx --import …/ConnectClock.ts …`): writes the
 * moment (epoch ms) it first opens a TCP connection into the file named by CONNECT_CLOCK_FILE, so
 * a test can time what the process does from its first connection attempt on, apart from its
 * start-up (loading the modules takes 1 s on an idle machine and over 10 s on a loaded one).
 */
import * as Fs from "node:fs"
import * as Net from "node:net"

const file = process.env.CONNECT_CLOCK_FILE
if (file !== undefined && file !== "") {
  const connect = Net.Socket.prototype.connect
  let recorded = false
  Net.Socket.prototype.connect = function(this: Net.Socket, ...args: Array<unknown>) {
    if (!recorded) {
      recorded = true
      Fs.writeFileSync(file, String(Date.now()))
    }
    return (connect as (...a: Array<unknown>) => Net.Socket).apply(this, args)
  } as typeof connect
}

/** The `node` arguments that start `entry` (test/support/BuiltApp.ts: `mainEntry()`, `cliEntry()`) with the clock. */
export const clockedEntry = (entry: ReadonlyArray<string>): ReadonlyArray<string> => [
  "--import",
  "tsx",
  "--import",
  new URL("./ConnectClock.ts", import.meta.url).pathname,
  ...entry
]

/** When the process first connected (epoch ms), or undefined if it never did. */
export const firstConnectAt = (clockFile: string): number | undefined =>
  Fs.existsSync(clockFile) ? Number(Fs.readFileSync(clockFile, "utf8")) : undefined
