/**
 * claudius's reading of the price database (`src/core/models/price_db.ts`) against the package's own
 * `calcPrice`, over every provider and model of the pinned data: the same model found for the same
 * name, and the same dollars, to the bit, for token counts across the cache and tier boundaries and at
 * times across every dated and time-of-day price.
 */
import { assert, assertEquals, assertRejects } from "../../_support/assert.ts";
import { calcPrice, waitForUpdate } from "@pydantic/genai-prices";
import type { Provider } from "@pydantic/genai-prices";
import { callPrice, findModel, loadProviders, pricesAt } from "../../../src/core/models/price_db.ts";
import type { TokenCounts } from "../../../src/core/models/price_db.ts";

type Data = Awaited<ReturnType<typeof loadProviders>>;
const data: Data = await loadProviders();

/** What the package finds for a name: `provider/model`, or null. */
function theirs(name: string, providerId: string | undefined): string | null {
  const r = calcPrice({ input_tokens: 1, output_tokens: 1 }, name, providerId ? { providerId } : {});
  return r && `${r.provider.id}/${r.model.id}`;
}

function ours(name: string, providerId: string | undefined): string | null {
  const f = findModel(data, name, providerId);
  return f ? `${f.provider}/${f.model.id}` : null;
}

Deno.test("a run from the checkout reads the package's own data", async () => {
  assertEquals(data, await waitForUpdate());
  assert(data.length > 30 && data.reduce((n, p) => n + p.models.length, 0) > 1000, "the data looks empty");
});

type NamePattern = Data[number]["models"][number]["match"];

/** The strings a pattern names (a regex's none). */
const candidates = (p: NamePattern): string[] =>
  "or" in p
    ? p.or.flatMap(candidates)
    : "and" in p
    ? p.and.flatMap(candidates)
    : "regex" in p
    ? []
    : [Object.values(p)[0] as string];

/** A name `pattern` takes (the model's id when it does), to price each model under a name of its own. */
function nameFor(pattern: NamePattern, id: string): string {
  return [id, ...candidates(pattern)].find((n) =>
    findModel([{ id: "x", models: [{ id, match: pattern, prices: {} }] }], n, "x")
  ) ?? id;
}

Deno.test("findModel() finds what the package finds, for every model under the names users write", () => {
  // Each provider by its id and by the names its pattern takes (`google-vertex`, ...).
  const aliases = data.flatMap((p) => p.provider_match ? candidates(p.provider_match) : []);
  assert(aliases.some((a) => !data.some((p) => p.id === a)), "no provider alias tried");
  const ids = [...data.map((p) => p.id), ...aliases, "surely-no-provider", undefined];
  const names = new Set<string>([
    "",
    "surely-not-a-model-7f3a",
    "gpt-4o-20240806",
    "claude-3-5-sonnet-20241022",
  ]);
  for (const p of data) {
    for (const m of p.models) {
      names.add(m.id).add(m.id.toUpperCase()).add(` ${m.id} `).add(`${m.id}-20250929`).add(`${p.id}/${m.id}`);
      names.add(m.id.replace(/-(20\d\d)-(\d\d)-(\d\d)/, "-$1$2$3")).add(`google/${m.id}`);
    }
  }
  let found = 0, checked = 0;
  for (const name of names) {
    for (const id of [undefined, ...(name.includes("gemini") ? ["google"] : [])]) {
      checked++;
      const want = theirs(name, id);
      assertEquals(ours(name, id), want, `name ${JSON.stringify(name)} provider ${id}`);
      if (want) found++;
    }
  }
  // Every name of every model, under every provider id.
  for (const id of ids) {
    for (const p of data) {
      for (const m of p.models) {
        checked++;
        const want = theirs(m.id, id);
        assertEquals(ours(m.id, id), want, `name ${m.id} provider ${id}`);
        if (want) found++;
      }
    }
  }
  assert(found > 1000 && checked > found, `${found} of ${checked} found`);
});

/** A number in [0, 1) from a seed (Knuth's multiplicative hash), the same every run. */
const seeded = (i: number) => ((Math.imul(i + 1, 2654435761) >>> 0) / 2 ** 32);

/** Token counts across the cache and tier boundaries (tiers start at the data's own thresholds). */
function countsToTry(): TokenCounts[] {
  const starts = new Set<number>();
  for (const p of data) {
    for (const m of p.models) {
      for (const prices of Array.isArray(m.prices) ? m.prices.map((c) => c.prices) : [m.prices]) {
        for (const v of Object.values(prices)) {
          if (typeof v === "object") v.tiers.forEach((t) => starts.add(t.start));
        }
      }
    }
  }
  assert(starts.size > 0, "no tiered prices in the data: the tier cases test nothing");
  const c = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
    input,
    output,
    cacheRead,
    cacheWrite,
  });
  return [
    c(0, 0),
    c(1, 1),
    c(1_000, 200),
    c(10_000, 1_000, 4_000),
    c(10_000, 1_000, 0, 3_000),
    c(10_000, 1_000, 2_500, 1_500),
    c(10_000, 1_000, 10_000),
    c(12.5, 3.25, 2.5, 1.25),
    c(0.1, 0.2, 0.05, 0.05),
    ...[...starts].flatMap((s) => [c(s, 7, s / 2), c(s + 1, 7, Math.floor(s / 3), 11), c(s + 1, 0)]),
    // Counts of every size, from a fixed seed: the rounding of each formula, not only round numbers.
    ...Array.from({ length: 40 }, (_, i) => {
      const n = Math.floor(seeded(i) * 10 ** (1 + (i % 7)));
      return c(
        n,
        Math.floor(seeded(i + 100) * 9_999),
        Math.floor(n * seeded(i + 200) / 2),
        Math.floor(n * seeded(i + 300) / 3),
      );
    }),
  ];
}

/** Times across every dated price and every time-of-day window (and a day of quarter hours). */
function timesToTry(): Date[] {
  const times = [new Date("2023-01-01T00:00:00Z"), new Date("2030-06-01T12:00:00Z")];
  let windows = 0;
  for (const p of data) {
    for (const m of p.models) {
      if (!Array.isArray(m.prices)) continue;
      for (const { constraint: c } of m.prices) {
        if (c?.type === "start_date") {
          const t = new Date(c.start_date).getTime();
          times.push(new Date(t - 1), new Date(t), new Date(t + 86_400_000));
        } else if (c?.type === "time_of_date") windows++;
      }
    }
  }
  assert(windows > 0, "no time-of-day prices in the data: the window cases test nothing");
  for (let q = 0; q < 96; q++) times.push(new Date(Date.UTC(2026, 5, 1, 0, q * 15)));
  for (let s = -2; s <= 2; s++) {
    for (const h of [0, 1, 8, 15, 16, 17, 23]) times.push(new Date(Date.UTC(2026, 5, 1, h, 30, s)));
    for (const h of [0, 1, 8, 15, 16, 17, 23]) times.push(new Date(Date.UTC(2026, 5, 1, h, 0, s)));
  }
  return times;
}

Deno.test("callPrice() agrees with the package's calcPrice to the bit, for every model, count and time", () => {
  const counts = countsToTry(), times = timesToTry();
  let compared = 0, unmatched = 0;
  for (const p of data) {
    for (const m of p.models) {
      // The package, told the provider, searches only its models.
      const only = { ...p, models: [m] } as unknown as Provider;
      const when = Array.isArray(m.prices) ? times : [times[0]!];
      for (const t of when) {
        for (const k of counts) {
          const usage = {
            input_tokens: k.input,
            output_tokens: k.output,
            cache_read_tokens: k.cacheRead,
            cache_write_tokens: k.cacheWrite,
          };
          const r = calcPrice(usage, nameFor(m.match, m.id), { provider: only, timestamp: t });
          if (r === null || r.model.id !== m.id) {
            unmatched++;
            break;
          }
          const mine = callPrice(pricesAt(m, t), k);
          assert(
            Object.is(mine, r.total_price),
            `${p.id}/${m.id} at ${t.toISOString()}, ${JSON.stringify(k)}: ${mine} != ${r.total_price}`,
          );
          compared++;
        }
      }
    }
  }
  // A model whose id its own pattern does not take cannot be priced under its id; there are few.
  console.log(compared, unmatched);
  assert(compared > 20_000 && unmatched < 20, `${compared} compared, ${unmatched} models unmatched`);
});

Deno.test("callPrice() agrees with the package where the data has no case: windows across midnight, offsets, tiers out of order", () => {
  const prices = (input: number) => ({
    input_mtok: { base: input, tiers: [{ start: 500, price: input * 3 }, { start: 100, price: input * 2 }] },
    cache_write_mtok: input / 4,
    output_mtok: 2,
    requests_kcount: 0.3,
  });
  const model = {
    id: "made-up",
    match: { equals: "made-up" },
    prices: [
      { prices: prices(1) },
      {
        constraint: { type: "time_of_date", start_time: "22:00:00+02:00", end_time: "02:30:00.5-01:00" },
        prices: prices(0.5),
      },
      {
        constraint: { type: "time_of_date", start_time: "23:10:00Z", end_time: "00:50:00Z" },
        prices: prices(0.25),
      },
    ],
  } as const;
  const provider = { id: "made-up", name: "Made up", api_pattern: "x", models: [model] };
  let differed = 0;
  for (let minute = 0; minute < 24 * 60; minute += 5) {
    for (const second of [-1, 0, 1]) {
      const t = new Date(Date.UTC(2026, 5, 1, 0, minute, second));
      for (
        const k of [{ input: 50, output: 3, cacheRead: 0, cacheWrite: 20 }, {
          input: 501,
          output: 1,
          cacheRead: 0,
          cacheWrite: 0,
        }]
      ) {
        const usage = {
          input_tokens: k.input,
          output_tokens: k.output,
          cache_read_tokens: 0,
          cache_write_tokens: k.cacheWrite,
        };
        const r = calcPrice(usage, "made-up", { provider: provider as unknown as Provider, timestamp: t });
        const mine = callPrice(pricesAt(model as unknown as Data[number]["models"][number], t), k);
        assert(
          r !== null && Object.is(mine, r.total_price),
          `${t.toISOString()} ${JSON.stringify(k)}: ${mine} != ${r?.total_price}`,
        );
        if (mine !== callPrice(prices(1), k)) differed++;
      }
    }
  }
  assert(differed > 100, "the windows never applied");
});

Deno.test("findModel() matches patterns as the package does where the data has no case: upper-case patterns", () => {
  const model = (id: string, match: NamePattern) => ({ id, match, prices: { input_mtok: 1 } });
  const provider = {
    id: "made-up",
    name: "Made up",
    api_pattern: "x",
    models: [
      model("a", { equals: "Made-Up" }),
      model("b", { starts_with: "MADE" }),
      model("c", { ends_with: "-UP" }),
      model("d", { contains: "DE-U" }),
      model("e", { and: [{ regex: "^x" }, { or: [{ contains: "Y" }, { ends_with: "z" }] }] }),
    ],
  };
  for (const name of ["made-up", "MADE-UP", "madex", "x-up", "xdE-Ux", "xy", "xz", "XZ", "zz"]) {
    const r = calcPrice({ input_tokens: 1, output_tokens: 1 }, name, {
      provider: provider as unknown as Provider,
    });
    const mine = findModel([provider as Data[number]], name, "made-up");
    assertEquals(mine?.model.id ?? null, r?.model.id ?? null, name);
  }
});

Deno.test("loadProviders(): a damaged data file is one error naming it; none is the package's data", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = new URL(`file://${dir}/genai_prices.json`);
    assertEquals(await loadProviders(file), await waitForUpdate());
    await Deno.writeTextFile(file, '[{"id": "openai", "mod');
    await assertRejects(
      () => loadProviders(file),
      Error,
      `Cannot read the price database ${dir}/genai_prices.json: `,
    );
    await Deno.writeTextFile(file, "[]");
    await assertRejects(
      () => loadProviders(file),
      Error,
      "no list of providers; deno task install writes it",
    );
    await Deno.writeTextFile(file, JSON.stringify({ table: "t", providers: [{ id: "only", models: [] }] }));
    assertEquals(await loadProviders(file), [{ id: "only", models: [] }]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
