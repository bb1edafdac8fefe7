/**
 * The price database's lookup and arithmetic, over its data rather than its module: the module of
 * `@pydantic/genai-prices` is ~0.8 MB of JavaScript whose data is one object literal, and a run that
 * compiles it keeps ~5 MiB more resident (1,000-step `openai/` runs: 86.2 against 80.8 MiB peak, median
 * of 4) than one that parses the same data as JSON. The installed program carries the data as
 * `genai_prices.json` beside its modules (written by `deno task install` from the pinned package); a run
 * from the checkout, or a build without the file, takes it from the package itself.
 *
 * The rules are the package's, for the four token counts claudius prices (input, output, cache read,
 * cache write; every other unit the database knows is 0 in a chat call): the provider by id, else by
 * its name pattern, else the first whose models' pattern takes the name; the model by its pattern,
 * then in the provider's fallback providers, then with a `-YYYYMMDD` date spelled `-YYYY-MM-DD`;
 * the price in force at the time (the last of dated or time-of-day prices that applies); input priced
 * without the cached tokens when those have a price of their own; a tiered price chosen by the call's
 * whole input. `tests/core/models/price_db_test.ts` holds every model of the pinned data to the
 * package's own `calcPrice`, to the bit.
 *
 * @module
 */
/** One call's token counts; `input` includes the cache reads and writes. */
export type TokenCounts = { input: number; output: number; cacheRead: number; cacheWrite: number };

/** How the database names a model or provider: patterns on the lower-cased name. */
export type NamePattern =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { and: NamePattern[] }
  | { or: NamePattern[] };

/**
 * Prices by key (`input_mtok`: dollars per million input tokens, ...); a tiered one is chosen by the
 * call's whole input token count (the last tier it exceeds the start of).
 */
export type ModelPrices = Record<
  string,
  number | { base: number; tiers: { start: number; price: number }[] } | undefined
>;

/** The database's entry of a model: its id, the names it takes, its prices (or its prices over time). */
export type DbModel = {
  id: string;
  match: NamePattern;
  prices: ModelPrices | {
    constraint?:
      | { type: "start_date"; start_date: string }
      | { type: "time_of_date"; start_time: string; end_time: string };
    prices: ModelPrices;
  }[];
};

/** The database's entry of a provider: its id, the names it and its models take, its fallbacks. */
export type DbProvider = {
  id: string;
  provider_match?: NamePattern;
  model_match?: NamePattern;
  fallback_model_providers?: string[];
  models: DbModel[];
};

/** A model's price, found: what was matched and what a call costs. */
export interface ModelPrice {
  /** `provider/model` as the database names them, for messages (`openai/gpt-5-mini`). */
  name: string;
  /** Dollars for a call's counts at the prices in force at `when`. */
  price(counts: TokenCounts, when: Date): number;
}

/** The data file `deno task install` writes beside the program's modules. */
export const DATA_FILE = "genai_prices.json";

/** Where runs look for {@link DATA_FILE}: beside this module (in the installed program, its bundle). */
export const DATA_URL: URL = new URL(`./${DATA_FILE}`, import.meta.url);

/**
 * The database's providers, from the package itself: what `deno task install` writes to {@link DATA_FILE},
 * as `{"table": "<package> <version>", "providers": [...]}` (the table first, for `priceTable()` to read).
 */
export async function packageData(): Promise<DbProvider[]> {
  const { waitForUpdate } = await import("@pydantic/genai-prices");
  return (await waitForUpdate() ?? []) as DbProvider[];
}

/**
 * The database's providers: the installed data file beside this module, else the package's own data.
 *
 * @param file the data file (a test's; default: {@link DATA_URL})
 * @throws {Error} naming the file, when it is there but unreadable or not the data (a damaged install)
 */
export async function loadProviders(file: URL = DATA_URL): Promise<DbProvider[]> {
  let data: unknown;
  try {
    data = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return await packageData();
    data = e;
  }
  const providers = (data as { providers?: unknown } | null)?.providers;
  if (Array.isArray(providers)) return providers;
  const why = data instanceof Error ? data.message : "no list of providers";
  throw new Error(
    `Cannot read the price database ${file.pathname}: ${why}; deno task install writes it (run it again)`,
  );
}

const matches = (p: NamePattern, name: string): boolean =>
  "or" in p
    ? p.or.some((q) => matches(q, name))
    : "and" in p
    ? p.and.every((q) => matches(q, name))
    : "equals" in p
    ? name.toLowerCase() === p.equals.toLowerCase()
    : "starts_with" in p
    ? name.toLowerCase().startsWith(p.starts_with.toLowerCase())
    : "ends_with" in p
    ? name.toLowerCase().endsWith(p.ends_with.toLowerCase())
    : "contains" in p
    ? name.toLowerCase().includes(p.contains.toLowerCase())
    : "regex" in p
    ? new RegExp(p.regex).test(name)
    : false;

/** A model of `provider` (or of its fallback providers, one level) that `name` names. */
function modelOf(providers: DbProvider[], provider: DbProvider, name: string): DbModel | undefined {
  const own = provider.models.find((m) => matches(m.match, name));
  if (own) return own;
  for (const id of provider.fallback_model_providers ?? []) {
    const found = providers.find((p) => p.id === id)?.models.find((m) => matches(m.match, name));
    if (found) return found;
  }
}

/** `-20250929` spelled `-2025-09-29` (real dates only), as some entries name their snapshots. */
const dashedDates = (name: string) =>
  name.replace(/(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g, (all, dash, y, m, d) => {
    const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    const real = date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(m) - 1 &&
      date.getUTCDate() === Number(d);
    return real ? `${dash}${y}-${m}-${d}` : all;
  });

/**
 * Find the model `name` names.
 *
 * @param providers the database ({@link loadProviders})
 * @param name the model name as sent (`gpt-5-mini`)
 * @param providerId the database's provider id (`openai`), or undefined to find it from the name
 * @returns the provider's id and the model's entry, or undefined when the database has none
 */
export function findModel(
  providers: DbProvider[],
  name: string,
  providerId: string | undefined,
): { provider: string; model: DbModel } | undefined {
  const model = name.toLowerCase().trim();
  let provider: DbProvider | undefined;
  if (providerId) {
    const id = providerId.toLowerCase().trim();
    provider = providers.find((p) => p.id === id) ??
      providers.find((p) => p.provider_match && matches(p.provider_match, id));
  } else if (model) provider = providers.find((p) => p.model_match && matches(p.model_match, model));
  if (!provider) return undefined;
  const dashed = dashedDates(model);
  const found = modelOf(providers, provider, model) ??
    (dashed === model ? undefined : modelOf(providers, provider, dashed));
  return found && { provider: provider.id, model: found };
}

/**
 * Look a model up in the database (loaded for the lookup, not kept: only the model's entry is).
 *
 * @param name the model name as sent; Vertex's `google/gemini-...` is also tried without `google/`
 * @param providerId the database's provider id, or undefined to find it from the name
 */
export async function lookUp(name: string, providerId: string | undefined): Promise<ModelPrice | undefined> {
  const providers = await loadProviders();
  const found = findModel(providers, name, providerId) ??
    (name.startsWith("google/") ? findModel(providers, name.slice("google/".length), providerId) : undefined);
  if (!found) return undefined;
  const { provider, model } = found;
  return {
    name: `${provider}/${model.id}`,
    price: (counts, when) => callPrice(pricesAt(model, when), counts),
  };
}

/** Seconds after midnight UTC of `HH:MM:SS[.fff](Z|+HH:MM|-HH:MM)`. */
function secondsOfDay(time: string): number {
  const t = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!t) throw new Error(`Invalid time-of-day price constraint: ${time}`);
  const [, h, m, s, fraction = "", zone, sign, oh = "00", om = "00"] = t;
  const offset = (Number(oh) * 60 + Number(om)) * 60;
  const local = Number(h) * 3600 + Number(m) * 60 + Number(s) + +`0.${fraction}`;
  return (local - (zone === "Z" ? 0 : sign === "+" ? offset : -offset) + 86400) % 86400;
}

/**
 * The model's prices in force at `when`: the last of its dated or time-of-day prices that applies,
 * else its first.
 */
export function pricesAt(model: DbModel, when: Date): ModelPrices {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint: c, prices } = model.prices[i]!;
    if (c === undefined) return prices;
    if (c.type === "start_date") {
      if (when >= new Date(c.start_date)) return prices;
    } else if (c.type === "time_of_date") {
      const now = when.getUTCHours() * 3600 + when.getUTCMinutes() * 60 + when.getUTCSeconds() +
        when.getUTCMilliseconds() / 1e3;
      const [from, to] = [secondsOfDay(c.start_time), secondsOfDay(c.end_time)];
      if (to < from ? now >= from || now < to : now >= from && now < to) return prices;
    } else throw new Error(`Unknown price constraint for model '${model.id}': ${JSON.stringify(c)}`);
  }
  return model.prices[0]!.prices;
}

/**
 * Dollars for one call at `prices`, summed as the package sums them (input, output, then per-request
 * prices), so that the figures agree to the bit. The cached tokens are input priced apart when they
 * have a price of their own.
 */
export function callPrice(prices: ModelPrices, k: TokenCounts): number {
  const cached = (prices.cache_read_mtok === undefined ? 0 : k.cacheRead) +
    (prices.cache_write_mtok === undefined ? 0 : k.cacheWrite);
  // The keys a chat call meets: [its count, per how many, 0 input / 1 output / 2 per request].
  const meets: Record<string, [number, number, 0 | 1 | 2]> = {
    input_mtok: [Math.max(0, k.input - cached), 1e6, 0],
    cache_read_mtok: [k.cacheRead, 1e6, 0],
    cache_write_mtok: [k.cacheWrite, 1e6, 0],
    output_mtok: [k.output, 1e6, 1],
    requests_kcount: [1, 1e3, 2],
  };
  const sums = [0, 0, 0];
  for (const [key, price] of Object.entries(prices)) {
    if (price === undefined || !Object.hasOwn(meets, key)) continue;
    const [n, per, side] = meets[key]!;
    if (typeof price === "number") sums[side]! += price * n / per;
    else {
      const tiers = [...price.tiers].sort((a, b) => a.start - b.start);
      const rate = tiers.reduce((r, t) => k.input > t.start ? t.price : r, price.base);
      sums[side]! += (n <= 0 ? 0 : rate * n / 1e6) * 1e6 / per;
    }
  }
  return sums[0]! + sums[1]! + sums[2]!;
}
