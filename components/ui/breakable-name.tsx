// An id or section name that may wrap only after its "-", "_", "/" or "." ("customer_service_-
// structure-00001"), never inside a word, where break-all would cut it ("customer_serv-ice").
import { Fragment } from "react";

export function BreakableName({ text }: { text: string }) {
  const parts = text.split(/(?<=[-_/.])/u);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
