// ACE Studio as an MCP server for coding agents (Claude Code, Cursor, Cline …): four tools, two
// resource templates and two prompts on the official SDK's McpServer. One server per caller: over
// HTTP one per request (stateless), over stdio one per process. Tool errors come back as tool
// results with isError and a message naming the problem, never as a crash of the connection.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z, ZodError } from "zod";
import { AppError } from "@/server/errors/app-error";
import { isStorageFull, storageFullError } from "@/server/errors/storage-full";
import {
  getPlaybookShape,
  playbookContextSchema,
  proposedLessonSchema,
  proposeLessonShape,
  recordedOutcomeSchema,
  recordOutcomeShape,
  searchBulletsShape,
  searchResultSchema,
  type FoundBullet,
} from "./schemas";
import {
  bulletResource,
  playbookContext,
  playbookResource,
  proposeLesson,
  recordOutcome,
  searchBullets,
  visiblePlaybooks,
  type McpCaller,
} from "./service";

/** The MCP surface's own version (tools, resources, prompts), announced at initialisation. */
const SURFACE_VERSION = "1.0.0";

const INSTRUCTIONS = `ACE Studio keeps this project's playbook: lessons (bullets with ids such as [str-00001]) learned on earlier tasks, with counters of how often each helped or harmed.
Before a task: call search_bullets with the task in a few words (or get_playbook for the whole ranked playbook) and follow the bullets that apply.
While working: cite each bullet you follow as [id] in your reasoning or summary.
After a task: call record_outcome with the task, the outcome (success, failure or unknown), the ids you used and what the tests or the person said. When you learned something general that the playbook lacks, call propose_lesson; a person reviews it before it joins the playbook.`;

function errorText(error: unknown): string {
  if (error instanceof AppError) return error.message;
  if (error instanceof ZodError) return error.issues.map((issue) => issue.message).join(" ");
  if (isStorageFull(error)) {
    console.error("[mcp] the disk is full:", error);
    return storageFullError(error).message;
  }
  console.error("[mcp] tool failed:", error);
  return "ACE Studio could not complete this call (an internal error; the server's log has the details). Nothing was changed by it if it wrote nothing yet; try again.";
}

/** A tool's answer: text for the model, the same facts as structuredContent for programs. */
async function answer<T extends Record<string, unknown>>(work: () => Promise<T>, text: (result: T) => string): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: "text", text: text(result) }], structuredContent: result };
  } catch (error) {
    return { content: [{ type: "text", text: errorText(error) }], isError: true };
  }
}

/** Resource reads answer JSON-RPC errors: a missing playbook or bullet is "invalid params" naming it. */
async function resourceOrError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.code !== "INTERNAL") throw new McpError(ErrorCode.InvalidParams, error.message);
    throw new McpError(ErrorCode.InternalError, errorText(error));
  }
}

function variable(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function bulletLine(bullet: FoundBullet): string {
  const content = bullet.content.replace(/\r?\n/g, "\n  ");
  return `[${bullet.id}] helpful=${bullet.helpful} harmful=${bullet.harmful} :: ${content}\n  (section ${bullet.section}; similarity ${bullet.score})`;
}

const playbookUri = (name: string) => `playbook://${encodeURIComponent(name)}`;

export function createAceMcpServer(caller: McpCaller): McpServer {
  const server = new McpServer({ name: "ace-studio", title: "ACE Studio", version: SURFACE_VERSION }, { instructions: INSTRUCTIONS });
  const one = caller.defaultPlaybook ? ` Defaults to "${caller.defaultPlaybook}".` : "";

  server.registerTool(
    "search_bullets",
    {
      title: "Search the playbook",
      description:
        "The playbook's active bullets most relevant to a task or problem, best first, each with its id, section, content and " +
        `helpful/harmful/neutral counters. Call it before you start a task, with the task in a few words.${one}`,
      inputSchema: searchBulletsShape,
      outputSchema: searchResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(
        () => searchBullets(caller, args),
        (result) =>
          result.bullets.length === 0
            ? `No bullet of "${result.playbook}" (version ${result.version}) resembles "${args.query}". Try other words, or get_playbook for the whole playbook.`
            : `${result.bullets.length} bullet${result.bullets.length === 1 ? "" : "s"} of "${result.playbook}" (version ${result.version}), most relevant first. Cite the ones you follow as [id].\n\n` +
              result.bullets.map(bulletLine).join("\n"),
      ),
  );

  server.registerTool(
    "get_playbook",
    {
      title: "Get the compiled playbook",
      description:
        "The whole playbook as an agent puts it in its prompt: ## section headers and [id] helpful=H harmful=K :: content lines, " +
        `ranked by helpful − harmful and cut to a token budget (the lowest-ranked go first).${one}`,
      inputSchema: getPlaybookShape,
      outputSchema: playbookContextSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      answer(
        () => playbookContext(caller, args),
        (result) =>
          result.context !== ""
            ? result.context
            : result.bulletCount === 0
              ? `The playbook "${result.playbook}" (version ${result.version}) has no active bullets yet.`
              : `No bullet of "${result.playbook}" fits in a budget of ${result.budget} tokens; ask for a larger budget.`,
      ),
  );

  server.registerTool(
    "record_outcome",
    {
      title: "Record a task's outcome",
      description:
        "After a task: stores what happened as a trace, so ACE Studio's reflector tags the bullets you used as helpful or harmful " +
        "and its curator can learn lessons from it. Send the task, the outcome, the ids of the bullets you followed and what the " +
        `tests or the person said.${one}`,
      inputSchema: recordOutcomeShape,
      outputSchema: recordedOutcomeSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      answer(
        () => recordOutcome(caller, args),
        (result) =>
          result.status === "created"
            ? `Stored as trace ${result.traceId} in "${result.playbook}". The reflector will tag ${
                result.citedBulletIds.length > 0
                  ? result.citedBulletIds.map((id) => `[${id}]`).join(", ")
                  : "the bullets cited in the summary"
              } by the outcome; lessons it finds reach the review queue.`
            : `A run with this externalId was stored before (trace ${result.traceId}); nothing new was stored.`,
      ),
  );

  server.registerTool(
    "propose_lesson",
    {
      title: "Propose a lesson",
      description:
        "Proposes a new bullet for the playbook: something general you learned that the playbook lacks (search_bullets first). " +
        `It waits in ACE Studio's review queue until a person approves it; it is never added on its own.${one}`,
      inputSchema: proposeLessonShape,
      outputSchema: proposedLessonSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      answer(
        () => proposeLesson(caller, args),
        (result) => result.message,
      ),
  );

  server.registerResource(
    "playbook",
    new ResourceTemplate("playbook://{name}", {
      list: async () => ({
        resources: (await visiblePlaybooks(caller)).map((playbook) => ({
          uri: playbookUri(playbook.name),
          name: playbook.name,
          title: `Playbook ${playbook.name}`,
          description: `The compiled playbook (version ${playbook.version}, ${playbook.bulletCount} active bullets).`,
          mimeType: "text/plain",
        })),
      }),
      complete: {
        name: async (value) =>
          (await visiblePlaybooks(caller))
            .map((playbook) => playbook.name)
            .filter((name) => name.toLowerCase().startsWith(value.toLowerCase())),
      },
    }),
    {
      title: "Compiled playbook",
      description: "A playbook's compiled context at its own token budget, as get_playbook gives it: playbook://<name, URL-encoded>.",
      mimeType: "text/plain",
    },
    (uri, variables) =>
      resourceOrError(async () => {
        const result = await playbookResource(caller, variable(variables.name));
        return { contents: [{ uri: uri.href, mimeType: "text/plain", text: result.context }] };
      }),
  );

  server.registerResource(
    "bullet",
    new ResourceTemplate("bullet://{name}/{id}", { list: undefined }),
    {
      title: "Bullet",
      description:
        "One bullet of a playbook, active or archived, with its counters, as JSON: bullet://<playbook name>/<bullet id>, URL-encoded.",
      mimeType: "application/json",
    },
    (uri, variables) =>
      resourceOrError(async () => {
        const bullet = await bulletResource(caller, variable(variables.name), variable(variables.id));
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(bullet, null, 2) }] };
      }),
  );

  const promptArgs = {
    task: z.string().optional().describe("The task, in a sentence."),
    playbook: z
      .string()
      .optional()
      .describe("The playbook's name." + one),
  };
  const playbookWords = (given: string | undefined) => {
    const name = given?.trim() || caller.defaultPlaybook;
    return name ? `the playbook "${name}"` : "the playbook (name it in each call)";
  };

  server.registerPrompt(
    "before_task",
    {
      title: "Before a task",
      description: "How to fetch the playbook's relevant bullets before starting a task, and cite them.",
      argsSchema: promptArgs,
    },
    ({ task, playbook }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              `Before you start${task ? ` on this task: ${task}` : " the task"}, consult ${playbookWords(playbook)} in ACE Studio.`,
              "1. Call search_bullets with the task in a few words (k 5 to 10). For a broad or unfamiliar task, call get_playbook instead to read the whole ranked playbook.",
              "2. Follow the bullets that apply; prefer those with more helpful than harmful. Ignore the ones that do not fit this task.",
              "3. Whenever a bullet guides a step, cite its id in square brackets, e.g. [str-00001], in your reasoning or your final summary, and keep the list of ids you used for record_outcome.",
            ].join("\n"),
          },
        },
      ],
    }),
  );

  server.registerPrompt(
    "after_task",
    {
      title: "After a task",
      description: "How to report the outcome of a task and propose what it taught, so the playbook learns.",
      argsSchema: { ...promptArgs, outcome: z.string().optional().describe("success, failure or unknown.") },
    },
    ({ task, playbook, outcome }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              `The task${task ? ` "${task}"` : ""} is over. Report it to ${playbookWords(playbook)} in ACE Studio.`,
              `1. Call record_outcome with the task, the outcome${outcome ? ` (here: ${outcome})` : ""} — success only when it is done and checked (tests pass, the person agreed), failure when a check failed or the task is not done, unknown otherwise — the ids of the bullets you followed (citedBulletIds), a short summary citing them as [id], the test output (testResults) and any error messages (errors).`,
              "2. If you learned something general that would help on other tasks and that the playbook lacks (search_bullets first), call propose_lesson with the lesson (one or two actionable sentences without this task's file names, ids or numbers), the section it belongs in, and a rationale for the reviewer; pass the traceId record_outcome returned. A person reviews it before it joins the playbook.",
              "3. Do not propose a lesson the playbook already has, or one that only restates what this task needed.",
            ].join("\n"),
          },
        },
      ],
    }),
  );

  return server;
}
