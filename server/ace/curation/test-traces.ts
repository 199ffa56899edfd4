// Failing agent runs on the two demo playbooks (prisma/seed/), written for the offline curator's
// tests and its before/after figures: tasks that differ in their instance (customer, order, amount)
// but fail for a few recurring reasons, the way a day of traces does. Two batches per playbook, so
// a second curation can be checked against the lessons the first one added.
import { readFileSync } from "node:fs";
import path from "node:path";
import { createPlaybookState, type PlaybookState } from "../delta";
import { countersOf, type PlaybookDocument } from "../document";
import { parsePlaybook } from "../formats";
import type { BulletState, SectionState } from "../history";
import type { ReflectorTrace } from "../reflection/trace";

/** A parsed playbook as the engine's state, sections s-0, s-1, … in file order. */
export function stateOfDocument(doc: PlaybookDocument): PlaybookState {
  const sections: SectionState[] = doc.sections.map((section, index) => ({
    id: `s-${index}`,
    name: section.name,
    slug: section.slug,
    position: index,
  }));
  const bullets: BulletState[] = doc.sections.flatMap((section, sectionIndex) =>
    section.bullets.map((bullet, position) => ({
      externalId: bullet.id,
      sectionId: `s-${sectionIndex}`,
      content: bullet.content,
      ...countersOf(bullet),
      status: bullet.status,
      position,
      archivedReason: bullet.archivedReason ?? null,
      mergedInto: bullet.mergedInto ?? null,
    })),
  );
  return createPlaybookState(sections, bullets);
}

const SEED_DIR = path.join(process.cwd(), "prisma", "seed");

/** A demo playbook of prisma/seed as the engine's state. */
export function demoPlaybook(file: "customer-service.kayba.json" | "appworld-initial.txt"): PlaybookState {
  return stateOfDocument(parsePlaybook(readFileSync(path.join(SEED_DIR, file), "utf8"), "auto").document);
}

function failure(task: string, feedback: ReflectorTrace["feedback"], output = "", citedBulletIds: string[] = []): ReflectorTrace {
  return {
    task,
    reasoning: citedBulletIds.map((id) => `Following [${id}].`).join(" "),
    output,
    outcome: "failure",
    feedback,
    citedBulletIds,
  };
}

export interface DemoTraces {
  playbook: "customer-service.kayba.json" | "appworld-initial.txt";
  /** The first day's failures, then a second batch with the same causes on other instances. */
  first: ReflectorTrace[];
  second: ReflectorTrace[];
}

export const CUSTOMER_SERVICE_TRACES: DemoTraces = {
  playbook: "customer-service.kayba.json",
  first: [
    failure("Customer #3 asks to refund order 1003. They paid by card.", { errors: ["Order 1003 not found"] }, "", [
      "customer_service_context-00005",
    ]),
    failure("Customer #7 asks to refund order 2044 after a late delivery.", { errors: ["Order 2044 not found"] }),
    failure("Customer #15 wants a refund for order 3310, which arrived broken.", { errors: ["Order 3310 not found"] }),
    failure("Customer #12 wants to change the delivery address of order 5521.", { errors: ["HTTP 429 Too Many Requests"] }),
    failure("Customer #4 asks for the status of order 1200.", { errors: ["HTTP 429 Too Many Requests"] }),
    failure("Customer #9 asks how much was refunded for order 3001.", { groundTruth: "42.50" }, "42.5 dollars"),
    failure("Customer #6 asks how much was refunded for order 3002.", { groundTruth: "17.25" }, "17.3"),
    failure("Customer #2 asks for the total of their last 3 orders.", { groundTruth: "118.20" }, "About 118"),
    failure("Customer #5 asks to cancel subscription sub_8f3a91c2.", { errors: ["Subscription sub_8f3a91c2 is already cancelled"] }),
    failure("Customer #11 asks to cancel subscription sub_77b2e4d0 before renewal.", {
      errors: ["Subscription sub_77b2e4d0 is already cancelled"],
    }),
    failure("Customer #1 asks to change their e-mail to ann@example.com.", { errors: ["Invalid email address: ann@example"] }),
  ],
  second: [
    failure("Customer #21 asks to refund order 7781.", { errors: ["Order 7781 not found"] }),
    failure("Customer #22 asks for the status of order 7790.", { errors: ["HTTP 429 Too Many Requests"] }),
    failure("Customer #23 asks how much they paid for order 7801.", { groundTruth: "19.99" }, "20"),
    failure("Customer #24 asks to cancel subscription sub_0a9d33e1.", { errors: ["Subscription sub_0a9d33e1 is already cancelled"] }),
  ],
};

export const APPWORLD_TRACES: DemoTraces = {
  playbook: "appworld-initial.txt",
  first: [
    failure("How many songs are in my Spotify library?", { groundTruth: "37" }, "20", ["psw-00007"]),
    failure("What is the total of my Venmo payments in March?", { groundTruth: "245.10" }, "245.1"),
    failure("Like every song in my 'Road trip' playlist on Spotify.", { errors: ["401 Unauthorized: access_token expired"] }, "", [
      "shr-00005",
    ]),
    failure("Send $20 to Bob via Venmo with the note 'pizza'.", { errors: ["401 Unauthorized: access_token expired"] }),
    failure("Add 'Milk' to my shopping list note in SimpleNote.", { errors: ["KeyError: 'note_id'"] }),
    failure("Delete the note titled 'Old ideas' in SimpleNote.", { errors: ["KeyError: 'note_id'"] }),
    failure("Return the date of my next dentist appointment.", { groundTruth: "2024-05-03" }, "May 3"),
    failure(
      "Write the total spent on groceries in May to answer.txt.",
      { testResults: "PASSED test_file_exists\nFAILED test_total - AssertionError: expected 312.40, got 312.4" },
      "312.4",
    ),
    failure("Mark every unread Gmail email from John as read.", { errors: ["TypeError: 'NoneType' object is not subscriptable"] }),
  ],
  second: [
    failure("How many playlists do I have on Spotify?", { groundTruth: "12" }, "5"),
    failure("Pay my phone bill of $45 with Venmo.", { errors: ["401 Unauthorized: access_token expired"] }),
    failure("Rename the note 'Todo' to 'Tasks' in SimpleNote.", { errors: ["KeyError: 'note_id'"] }),
  ],
};
