/**
 * Context compression (Daemon's): once the last response reports `usage.prompt_tokens` at or over
 * the threshold, the model is asked to compress its own transcript; the conversation restarts from
 * the system prompt, the task (both copied) and that summary. The trajectory keeps every message:
 * the request, the summary reply, then the restart (see `_window.ts` for the marker).
 *
 * @module
 */
import { renderTemplate } from "../../lib/python/template/template.ts";
import type { MechanismExtra, Message } from "../../core/types.ts";
import type { Loop, Mechanism, MechanismContext } from "./mechanism.ts";
import type { ContextWindow } from "./_window.ts";
import { isPlainObject } from "../../lib/json.ts";

/** `usage.prompt_tokens` of the latest response among `messages` (format errors included), if any. */
export function lastPromptTokens(messages: readonly Message[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const response = messages[i]?.extra?.response;
    if (response === undefined) continue;
    const usage = isPlainObject(response) ? response.usage : undefined;
    return isPlainObject(usage) && typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : undefined;
  }
  return undefined;
}

/** One compaction, as `info.mechanisms.compression.compactions` lists it. */
interface Compaction {
  prompt_tokens: number;
  summary_chars: number;
  boundary?: number;
}

/** The `compression` switch. */
export function compression({ config, window }: MechanismContext): Mechanism {
  const c = config.compression;
  const log: Compaction[] = [];
  return {
    name: "compression",
    async beforeQuery(loop) {
      if (c.max_compactions > 0 && log.length >= c.max_compactions) return;
      const tokens = lastPromptTokens(window.view(loop.messages));
      if (tokens !== undefined && tokens >= c.prompt_tokens) {
        await compact(c, window, loop, tokens, log);
      }
    },
    restore(messages) {
      log.push(...restoredLog(messages));
    },
    facts: () => ({ compactions: log }),
  };
}

/**
 * Ask the model for a summary of its transcript and restart the conversation from it (listed in
 * `log`); an empty summary leaves the conversation as it was, the request and reply a side call.
 */
async function compact(
  c: MechanismContext["config"]["compression"],
  window: ContextWindow,
  loop: Loop,
  promptTokens: number,
  log: Compaction[],
): Promise<void> {
  loop.checkLimits();
  const n = log.length + 1;
  const vars = { ...loop.vars(), prompt_tokens: promptTokens, compactions: n };
  const requestExtra: MechanismExtra = { mechanism: "compression", compaction: n };
  const request: Message = {
    role: "user",
    content: renderTemplate(c.request_template, vars, "mechanisms.compression.request_template"),
    extra: requestExtra,
  };
  loop.append(request);
  const reply = await loop.call(window.view(loop.messages), "prose");
  reply.extra.mechanism = "compression";
  loop.append(reply);
  const summary = (reply.content ?? "").trim();
  const done: Compaction = { prompt_tokens: promptTokens, summary_chars: summary.length };
  log.push(done);
  if (!summary) {
    // Nothing to restart from: the conversation goes on as it was. Request and reply (a tool call
    // alone leaves an assistant message with no content, which providers refuse) are a side call.
    Object.assign(requestExtra, { side_call: "compression", prompt_tokens: promptTokens });
    reply.extra.side_call = "compression";
    window.exclude(request, reply);
    return;
  }
  const content = renderTemplate(
    c.summary_template,
    { ...vars, summary },
    "mechanisms.compression.summary_template",
  );
  window.restart(
    loop,
    "compaction",
    `Context compacted (${n}): ${promptTokens} prompt tokens; the model's summary follows the copied task.`,
    { compaction: n, prompt_tokens: promptTokens, summary_message: loop.messages.length - 1 },
    { role: "user", content, extra: { mechanism: "compression", compaction: n } },
  );
  done.boundary = window.start;
}

/** The compactions a resumed run's messages record: side calls (empty summaries) and restarts. */
function restoredLog(messages: readonly Message[]): Compaction[] {
  const log: Compaction[] = [];
  for (const m of messages) {
    const extra = isPlainObject(m.extra) ? m.extra : undefined;
    if (m.role === "user" && extra?.side_call === "compression") {
      log.push({ prompt_tokens: Number(extra.prompt_tokens), summary_chars: 0 });
    }
    const cm = isPlainObject(extra?.context_management) ? extra.context_management : undefined;
    if (m.role !== "system" || cm?.type !== "compaction") continue;
    const summary = messages[Number(cm.summary_message)];
    log.push({
      prompt_tokens: Number(cm.prompt_tokens),
      summary_chars: String(summary?.content ?? "").trim().length,
      boundary: Number(cm.boundary),
    });
  }
  return log;
}
