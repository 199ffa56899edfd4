// Redaction at ingestion (issue 16 §1) as a person sets and sees it: a playbook's settings turn on
// email redaction, a trace posted afterwards is stored without the address or the card number, and
// its page says what was replaced where; a custom pattern is tried on recent traces before saving.
import { expect, test } from "@playwright/test";
import { openPage, postTraces, seedSmallPlaybook } from "./support";

const EMAIL = "jane.doe@example.com";
const CARD = "4111 1111 1111 1111";

test("turning on email redaction stores the next trace without the address, and its page says what was replaced", async ({
  page,
  request,
}) => {
  const name = `Redaction ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);

  await openPage(page, `/playbooks/${playbookId}/settings`);
  const card = page.getByRole("region", { name: "Redaction" });
  await expect(card.getByRole("switch", { name: "Card numbers" })).toBeChecked();
  await expect(card.getByRole("switch", { name: "Email addresses" })).not.toBeChecked();
  await expect(card.getByRole("switch", { name: "US social security numbers" })).not.toBeChecked();
  await card.getByRole("switch", { name: "Email addresses" }).click();
  await card.getByRole("button", { name: "Save redaction" }).click();
  await expect(page.getByText(/Redaction saved as version \d+/)).toBeVisible();

  const { traces } = await postTraces(request, [
    { playbook: name, task: `Refund the order of ${EMAIL}, card ${CARD}, ticket TCK-123456.`, outcome: "success" },
  ]);
  await openPage(page, `/traces/${traces[0]!.id}`);
  await expect(
    page.getByRole("heading", { level: 1, name: "Refund the order of [REDACTED:email], card [REDACTED:card], ticket TCK-123456." }),
  ).toBeVisible();
  await expect(page.getByText(EMAIL)).toHaveCount(0);
  const section = page.getByRole("region", { name: /Redacted at ingestion/ });
  await expect(section).toContainText("2 findings replaced before the trace was stored or sent to a model");
  await expect(section.getByText("task", { exact: true })).toBeVisible();

  // A custom pattern is tried on the stored traces before it is saved.
  await openPage(page, `/playbooks/${playbookId}/settings`);
  await card.getByRole("button", { name: "Add a pattern" }).click();
  await card.getByRole("textbox", { name: "Custom pattern 1 name" }).fill("ticket");
  await card.getByRole("textbox", { name: "Custom pattern 1 pattern" }).fill("TCK-[0-9]{6}");
  await card.getByRole("button", { name: "Try on recent traces" }).click();
  await expect(card.getByText(/Of the 1 newest trace, 1 trace would have something replaced/)).toBeVisible();
  await expect(card.getByText("ticket [REDACTED:ticket].", { exact: false })).toBeVisible();
});
