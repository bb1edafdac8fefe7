/** stub */
export function inspectMain(_argv: string[], _env: Record<string, string>): Promise<number> {
  return Promise.resolve(0);
}
