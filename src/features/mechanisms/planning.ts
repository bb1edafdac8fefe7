/**
 * Routing and planning (Daemon's, interactive runs only): before the first step, a cheap
 * classification call (the system prompt and a short question about the task, kept out of the
 * conversation) decides whether a plan is needed; if so the model proposes a plan and revises it
 * with the user until the user accepts it (an empty answer), the model's reply carries the finish
 * marker, or `max_rounds` plans were made. Without a way to ask the user (headless) it does nothing.
 *
 * @module
 */
import { renderTemplate } from "../../lib/python/template/template.ts";
import type { Message } from "../../core/types.ts";
import type { Loop, Mechanism, MechanismContext } from "./mechanism.ts";

/** The `planning` switch. */
export function planning(ctx: MechanismContext): Mechanism {
  const planRe = new RegExp(ctx.config.planning.plan_regex);
  let done = false;
  const facts: Record<string, unknown> = {};
  return {
    name: "planning",
    async beforeQuery(loop) {
      if (done) return;
      done = true;
      const ask = ctx.deps.ask;
      if (!ask) {
        facts.skipped = "no user to ask (headless)";
        return;
      }
      const c = ctx.config.planning;
      const vars = { ...loop.vars(), finish_marker: c.finish_marker };
      const render: Render = (template, key, more = {}) =>
        renderTemplate(template, { ...vars, ...more }, `mechanisms.planning.${key}`);
      const plan = planRe.test(await route(ctx, loop, render));
      facts.decision = plan ? "plan" : "direct";
      if (plan) Object.assign(facts, await makePlan(ctx, loop, render, ask));
    },
    facts: () => facts,
  };
}

type Render = (template: string, key: string, more?: Record<string, unknown>) => string;

/** The routing call (the system prompt and the question, kept out of the conversation): its verdict. */
async function route({ config, window }: MechanismContext, loop: Loop, render: Render): Promise<string> {
  const question: Message = {
    role: "user",
    content: render(config.planning.routing_template, "routing_template"),
    extra: { mechanism: "planning", side_call: "routing" },
  };
  loop.append(question);
  const system = loop.messages[0];
  const verdict = await loop.call(system ? [system, question] : [question], "prose");
  verdict.extra.mechanism = "planning";
  verdict.extra.side_call = "routing";
  loop.append(verdict);
  window.exclude(question, verdict);
  return verdict.content ?? "";
}

/** Plans and the user's answers, until one is accepted, carries the marker, or `max_rounds` were made. */
async function makePlan(
  { config, window }: MechanismContext,
  loop: Loop,
  render: Render,
  ask: (question: string) => Promise<string | null>,
): Promise<{ rounds: number; ended: string }> {
  const c = config.planning;
  const say = (content: string, more: Record<string, unknown> = {}) =>
    loop.append({ role: "user", content, extra: { mechanism: "planning", ...more } });
  say(render(c.plan_template, "plan_template"));
  let rounds = 0;
  let ended = "max_rounds";
  while (rounds < c.max_rounds) {
    rounds++;
    const reply = await loop.call(window.view(loop.messages), "prose");
    reply.extra.mechanism = "planning";
    loop.append(reply);
    const text = reply.content ?? "";
    if (text.includes(c.finish_marker)) {
      ended = "marker";
      break;
    }
    if (rounds >= c.max_rounds) break;
    const answer = await ask(render(c.question_template, "question_template", { plan: text, round: rounds }));
    if (answer === null || answer.trim() === "") {
      ended = answer === null ? "no answer" : "accepted";
      break;
    }
    say(answer, { user_feedback: true });
  }
  say(render(c.go_template, "go_template"));
  return { rounds, ended };
}
