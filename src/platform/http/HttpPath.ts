/** The parts of a request URL (`/a/b?x=1`): path `/a/b`, query `x=1` (without the `?`). */
export const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

export const queryOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? "" : url.slice(q + 1)
}
