// What an injection looks like, as keyword families per language combined into patterns: a verb of
// one family near an object of another within one sentence, in either order (Japanese, Hindi and
// Bengali put the object first). Latin-script languages (English, Spanish, French, Portuguese,
// German) are read on the look-alike skeleton; the others on the native text. Keywords are folded
// (fold in ./normalize) like the text, so accents and spelling variants need no listing.

import { fold } from "./normalize";

export const INJECTION_KINDS = [
  "instruction_override",
  "role_marker",
  "hidden_text",
  "data_exfiltration",
  "secret_request",
  "policy_override",
] as const;
export type InjectionKind = (typeof INJECTION_KINDS)[number];

export interface InjectionRule {
  id: string;
  kind: InjectionKind;
  /** Which readings it runs on (see Reading.scripts); "raw" runs on the text as written only. */
  reads: "latin" | "native" | "any" | "raw";
  pattern: RegExp;
  /** The same pattern for a reading whose spaced-out letters were joined (word gaps optional). */
  compact?: RegExp;
  message: string;
  /**
   * Cheap first test: every one of these must match the folded, lower-cased reading before the
   * pattern runs. Each is an alternation of the literal beginnings of one keyword family the
   * pattern cannot match without.
   */
  gates: RegExp[];
  /** Advice that forbids the act ("never ask for the card number") is not an attack. */
  negatable?: boolean;
  accept?: (match: RegExpExecArray, text: string) => boolean;
}

// ---- building blocks ---------------------------------------------------------------------------

/** Keywords are matched on folded, lower-cased text (faster than a case-insensitive pattern); escapes stay. */
const lowerKeyword = (word: string) =>
  fold(word).replace(/(\\p\{[^}]*\}|\\.)|([^\\]+)/gu, (_, escape?: string, plain?: string) => escape ?? (plain ?? "").toLowerCase());
const any = (words: readonly string[]) => `(?:${words.map(lowerKeyword).join("|")})`;

/** The literal beginning of each keyword of a family, by the family's pattern source. */
const LITERALS = new Map<string, readonly string[]>();

/** Registers the family's literal beginnings when every keyword has one (else it has no gate). */
function family(source: string, words: readonly string[]): string {
  const literals = words.map((word) => fold(/^[^\s()[\]?*+{}|\\.^$]*/u.exec(word)?.[0] ?? "").toLowerCase());
  if (literals.every((literal) => literal.length > 0)) LITERALS.set(source, literals);
  return source;
}
/**
 * Latin words: a space in a keyword is any run of whitespace; words stand alone. The start is an
 * ASCII word boundary, not a lookbehind (several times faster): folded Latin text is almost all ASCII.
 */
const latin = (words: readonly string[]) => family(`\\b${any(words.map((word) => word.replace(/ /gu, "\\s+")))}(?![\\p{L}])`, words);
const latinStem = (words: readonly string[]) => family(`\\b${any(words.map((word) => word.replace(/ /gu, "\\s+")))}`, words);
/** Native words: substrings, as words join their particles and affixes. */
const native = (words: readonly string[]) => family(any(words.map((word) => word.replace(/ /gu, "\\s*"))), words);

const escapeLiteral = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");

/** A gate per needed family: its registered literals, or literals given by hand for a family of patterns. */
function gatesOf(needs: readonly (string | readonly string[])[]): RegExp[] {
  return needs.map((need) => {
    const literals = typeof need === "string" ? LITERALS.get(need) : need.map((literal) => fold(literal).toLowerCase());
    if (!literals) throw new Error(`No literal gate for a keyword family of an injection rule: ${need.slice(0, 60)}`);
    // A Latin keyword starts a word ("lass" is not in "class"); the other scripts join words.
    return new RegExp(
      [...new Set(literals)].map((literal) => (/^\w/u.test(literal) ? `\\b${escapeLiteral(literal)}` : escapeLiteral(literal))).join("|"),
      "u",
    );
  });
}
// Within one sentence: a full stop ends one only when a space or the end follows ("v1.2", URLs and e-mail addresses go on).
const SENTENCE = "(?:[^.!?;\\n。！？؟।]|\\.(?=\\S))";
const near = (a: string, b: string, gap: number) => `${a}${SENTENCE}{0,${gap}}?${b}`;
const nearEither = (a: string, b: string, gap: number) => `(?:${near(a, b, gap)}|${near(b, a, gap)})`;

function rule(
  id: string,
  kind: InjectionKind,
  reads: InjectionRule["reads"],
  source: string,
  message: string,
  extra: Pick<InjectionRule, "negatable" | "accept"> = {},
): InjectionRule {
  // Latin and native rules read lower-cased text; the others see case ("[INST]", "$OPENAI_API_KEY").
  const flags = reads === "latin" || reads === "native" ? "gu" : "giu";
  const pattern = new RegExp(source, flags);
  // Joined letters lose the gaps between words and the edges of words.
  const compact =
    reads === "latin" ? new RegExp(source.replace(/\\s\+/gu, "\\s*").replace(/\\b|\(\?!\[\\p\{L\}\]\)/gu, ""), flags) : undefined;
  return { id, kind, reads, pattern, compact, message, gates: [], ...extra };
}

// ---- Latin-script families (English, Spanish, French, Portuguese, German) ------------------------

// prettier-ignore
const DISCARD = latin([
  // English
  "ignore", "disregard", "forget", "set aside", "put aside", "cast aside", "lay aside", "drop", "discard", "abandon", "override",
  "overrule", "bypass", "throw out", "throw away", "pay no attention to", "pay no heed to", "stop following", "stop obeying",
  "do not follow", "don't follow", "dont follow", "no longer follow", "do not obey", "don't obey", "stop obeying", "erase",
  "wipe", "scrap", "ditch", "skip", "unlearn", "delete",
  // Spanish
  "ignora", "ignore", "ignorar", "ignoren", "olvida", "olvide", "olvidar", "olviden", "descarta", "descarte", "omite", "omita",
  "haz caso omiso de", "hagan caso omiso de", "no sigas", "no siga", "deja de seguir", "pasa por alto", "prescinde de", "anula",
  "deja de lado",
  // French
  "ignorez", "ignorer", "oublie", "oubliez", "oublier", "ne tiens pas compte de", "ne tenez pas compte de",
  "ne tiens plus compte de", "fais abstraction de", "faites abstraction de", "laisse de côté", "laissez de côté", "mets de côté",
  "mettez de côté", "passe outre", "passez outre", "écarte", "écartez", "efface", "effacez", "n'obéis plus à", "ne suis plus",
  "ne suivez plus",
  // Portuguese
  "esqueça", "esquece", "esquecer", "esqueçam", "desconsidere", "desconsidera", "deixe de lado", "deixa de lado", "não siga",
  "não sigas", "pare de seguir", "despreze", "descarte", "ignorem",
  // German
  "ignoriere", "ignorier", "ignorieren sie", "ignoriert", "vergiss", "vergesst", "vergessen sie", "missachte", "missachten sie",
  "verwirf", "verwerfen sie", "übergehe", "übergehen sie", "lass", "lassen sie", "beachte nicht", "befolge nicht",
  "setze außer kraft", "setzen sie außer kraft", "streiche", "lösche",
]);

// prettier-ignore
const INSTRUCTIONS = latinStem([
  // Not "context" or "messages": dropping old context is ordinary advice to an agent.
  "instructions?", "prompts?", "rules?", "directions", "directives?", "guidelines?", "guidance", "constraints", "commands", "orders", "programming", "policies", "restrictions", "safeguards", "system prompt",
  "system message", "instrucciones", "indicaciones", "reglas", "normas", "directrices", "órdenes", "consignas",
  "consignes", "règles", "directives", "indications", "ordres", "contraintes", "instruções", "regras", "diretrizes",
  "orientações", "ordens", "anweisungen", "instruktionen", "regeln", "vorgaben", "richtlinien", "befehle",
  "systemanweisungen", "systemprompt",
]);

// prettier-ignore
const EARLIER = latinStem([
  "previous", "prior", "above", "earlier", "preceding", "foregoing", "original", "initial", "system", "developer", "old",
  "existing", "past", "former", "given", "safety", "anterior(?:es)?", "previas?", "originales", "iniciales", "del sistema",
  "de arriba", "précédentes", "antérieures", "initiales", "originales", "du système", "ci-dessus", "anteriores", "prévias",
  "originais", "do sistema", "acima", "vorherigen", "bisherigen", "vorigen", "früheren", "obigen", "ursprünglichen",
  "anfänglichen", "vorangegangenen", "alten",
]);

/** "everything you were told before", "tout ce qu'on t'a dit", "alles, was dir gesagt wurde". */
// prettier-ignore
const TOLD_BEFORE = latinStem([

  "(?:everything|anything|all|whatever|what) (?:that )?(?:you(?:'ve| have)? (?:been|were)|you got|i|we|they|anyone) (?:previously |earlier |already )?(?:told|given|taught|instructed|said|asked)",
  "everything (?:above|before this|so far|prior)", "all of the above", "the above",
  "todo lo (?:que (?:se )?te (?:dijeron|han dicho|dije|dijo|indicaron)|anterior)", "lo anterior",
  "tout ce (?:qu'on t'a dit|que l'on t'a dit|qu'on vous a dit|que l'on vous a dit|qui précède|qui a été dit)",
  "tudo (?:o )?que (?:te|lhe) (?:disseram|foi dito|disse)", "tudo o que foi dito antes", "tudo acima",
  "alles,? was (?:dir|ihnen|euch) (?:vorher |zuvor |bisher |bislang )?(?:gesagt|aufgetragen|vorgegeben) (?:wurde|worden ist)",
  "alles bisherige", "alles vorherige",
]);

// prettier-ignore
const FROM_NOW = latin([
  "from now on", "from this point on", "from this point forward", "from here on", "henceforth", "effective immediately",
  "a partir de ahora", "de ahora en adelante", "desde ahora", "désormais", "à partir de maintenant", "dorénavant",
  "dès maintenant", "a partir de agora", "de agora em diante", "daqui em diante", "daqui para frente", "ab sofort", "von nun an",
  "ab jetzt", "fortan", "künftig",
]);
// prettier-ignore
const ALWAYS_OR_YOU = latinStem([
  "always", "never", "you", "approve", "ignore", "only", "reply", "respond", "answer", "send", "tell", "must", "siempre",
  "nunca", "debes", "tú", "tu", "aprueba", "responde", "toujours", "jamais", "vous", "approuve", "réponds", "répondez", "sempre",
  "você", "deve", "aprove", "responda", "immer", "nie", "niemals", "du", "sie", "genehmige", "antworte",
]);

// prettier-ignore
const SEND = latin([
  "send", "e-?mail", "mail", "post", "upload", "forward", "transmit", "export", "copy", "leak", "share", "submit", "exfiltrate",
  "dump", "ship", "beam", "pipe", "relay", "cc", "bcc", "paste", "envía", "envie", "envíe", "enviar", "manda", "mande", "mandar",
  "reenvía", "reenvie", "sube", "suba", "publica", "comparte", "comparta", "transfiere", "filtra", "envoie", "envoyez",
  "envoyer", "transmets", "transmettez", "transférez", "transfère", "publie", "publiez", "téléverse", "partage", "partagez",
  "exfiltre", "fais suivre", "faites suivre", "copie", "copiez", "envia", "mande", "encaminhe", "encaminha", "publique",
  "carregue", "compartilhe", "partilhe", "transfira", "vaze", "sende", "senden sie", "schicke", "schick", "schicken sie",
  "maile", "mailen sie", "leite weiter", "leiten sie weiter", "übermittle", "übermitteln sie", "lade hoch", "laden sie hoch",
  "poste", "veröffentliche", "kopiere", "exportiere",
]);

// prettier-ignore
const SENSITIVE_DATA = latinStem([
  // English

  "(?:all|every|each|the full|the entire|full|complete|entire) (?:of )?(?:the )?(?:customer|user|client|patient|account|order|payment|billing|personal|private|internal)?\\s*(?:records|data|database|details|information|info|files|emails|contacts|history|transcripts|conversations)",
  "(?:customer|user|client|patient|personal|private|account|billing|payment|employee)(?:'s|s')? (?:records|data|database|details|information|info|pii|files|emails|contacts|history)",
  "records", "database", "db dump", "pii", "chat history", "conversation history", "conversation", "transcripts?", "credentials",
  "passwords?", "api[ _-]?keys?", "access[ _-]?tokens?", "auth tokens?", "tokens", "secrets", "private keys?",
  "(?:credit |debit |bank )?card (?:details|numbers?|data|info)", "credit cards?", "cvvs?", "ssns?", "social security numbers?",
  "env(?:ironment)? variables", "system prompt",
  // Spanish
  "registros", "(?:los )?datos (?:de (?:los |las )?(?:clientes|usuarios)|personales|del cliente|bancarios|de (?:la )?tarjeta)",
  "credenciales", "contraseñas", "claves", "números de tarjeta", "tarjetas", "base de datos", "historial", "toda la información",
  // French
  "dossiers", "données (?:clients|des clients|personnelles|bancaires|de carte)", "toutes les données", "identifiants",
  "mots de passe", "coordonnées bancaires", "numéros de carte", "base de données", "historique", "enregistrements",
  "fiches clients",
  // Portuguese
  "registros", "registos", "dados (?:dos clientes|pessoais|do cliente|bancários|do cartão)", "todos os dados", "credenciais",
  "senhas", "palavras-passe", "números de cartão", "cartões", "banco de dados", "base de dados", "histórico",
  // German
  "datensätze", "kundendaten", "alle daten", "personenbezogene daten", "zugangsdaten", "anmeldedaten", "passwörter",
  "kennwörter", "kreditkartendaten", "kartendaten", "kartennummern", "datenbank", "verlauf", "kundenakten",
]);

const DESTINATION =
  "(?:[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+|https?://|www\\.|webhook|pastebin|" +
  latinStem([
    "(?:to|at|into|onto) (?:an? |the |this |my |our |that )?(?:external|outside|remote|third-party|personal|private|attacker|backup|following) ",
    "(?<=\\s)out(?: of (?:the|this) (?:system|company))?(?![\\p{L}-])",
    "outside",
    "externo",
    "externa",
    "exterior",
    "externe",
    "à l'extérieur",
    "extern",
    "externen",
    "externe adresse",
  ]) +
  ")";

// prettier-ignore
const ASK = latin([
  "ask", "request", "prompt", "require", "make", "have", "get", "tell", "instruct", "demand", "invite", "encourage",
  "insist that", "pide", "pídele", "pidan", "solicita", "solicítale", "pregunta", "pregúntale", "exige", "exígele", "haz que",
  "demande", "demandez", "exige", "exigez", "fais saisir", "faites saisir", "invite", "invitez", "fais", "faites", "peça",
  "pede", "solicite", "exija", "pergunte", "faça", "frage", "fragen sie", "fordere", "fordern sie", "bitte", "bitten sie",
  "lass", "lassen sie", "verlange", "verlangen sie",
]);
// prettier-ignore
const PERSON = latinStem([
  "the customer", "customers", "the user", "users", "the client", "clients", "the caller", "callers", "them", "him", "her",
  "the buyer", "the shopper", "the cardholder", "the person", "the patient", "everyone", "customer", "user", "al cliente",
  "el cliente", "los clientes", "al usuario", "el usuario", "le", "les", "le client", "au client", "les clients",
  "l'utilisateur", "à l'utilisateur", "o cliente", "ao cliente", "os clientes", "o usuário", "ao usuário", "o utilizador",
  "den kunden", "die kunden", "kunden", "den nutzer", "den benutzer", "nutzer", "benutzer",
]);
// prettier-ignore
const USER_SECRET = latinStem([

  "(?:full|complete|entire|whole|all(?: of)?(?: the)?|their|your|his|her|the) (?:credit |debit |bank )?card (?:details|numbers?|info(?:rmation)?|data)",
  "card details", "card number(?! ending)", "cvv2?", "cvc", "security code", "card verification", "expiry date and cvv",
  "pin(?: code| number)?", "passwords?", "passcode", "passphrase", "login credentials", "credentials",
  "one[- ]time (?:code|password)", "otp", "2fa code", "verification code", "ssn", "social security number",
  "bank (?:account )?(?:details|login|password)", "online banking", "seed phrase", "recovery phrase", "private key",
  "mother's maiden name", "datos (?:completos )?de (?:la |su )?tarjeta", "número (?:completo )?de (?:la |su )?tarjeta",
  "código de seguridad", "contraseña", "clave", "pin", "coordonnées bancaires (?:complètes)?",
  "numéro (?:complet )?de (?:la |sa |votre )?carte", "données de (?:la |sa )?carte", "cryptogramme", "code de sécurité",
  "mot de passe", "code secret", "code pin", "dados (?:completos )?do cartão", "número (?:completo )?do cartão",
  "código de segurança", "senha", "palavra-passe", "vollständigen? kartendaten", "kartendaten", "kartennummer",
  "kreditkartennummer", "prüfnummer", "passwort", "kennwort", "sicherheitscode", "pin",
]);

// prettier-ignore
const APPROVE = latin([
  "approve", "authori[sz]e", "grant", "greenlight", "rubber-stamp", "auto-approve", "autoapprove", "sign off on", "accept",
  "refund", "pay out", "aprueba", "apruebe", "aprobar", "autoriza", "autorice", "acepta", "acepte", "reembolsa", "approuve",
  "approuvez", "approuver", "valide", "validez", "autorise", "autorisez", "accepte", "acceptez", "rembourse", "remboursez",
  "aprove", "aprova", "aprovar", "autorize", "autoriza", "aceite", "aceita", "reembolse", "genehmige", "genehmigen sie",
  "genehmigt", "bewillige", "akzeptiere", "akzeptieren sie", "erstatte", "gib frei", "geben sie frei", "winke durch",
]);
// prettier-ignore
const EVERYTHING = latinStem([
  "every", "all", "any", "each", "everything", "anything", "whatever", "todo", "todos", "todas", "cada", "cualquier", "tout",
  "tous", "toutes", "chaque", "n'importe quel", "tudo", "todos", "todas", "cada", "qualquer", "alle", "alles", "jede", "jeden",
  "jedes", "sämtliche",
]);
// prettier-ignore
const ALWAYS = latin([
  "always", "automatically", "unconditionally", "blindly", "siempre", "automáticamente", "toujours", "automatiquement", "sempre",
  "automaticamente", "immer", "automatisch", "grundsätzlich",
]);
// prettier-ignore
/** Approving outright: with "every", "all" … it is a policy override ("accept any date format" is not). */
// prettier-ignore
const APPROVE_OUTRIGHT = latin([
  "approve", "authori[sz]e", "greenlight", "rubber-stamp", "auto-approve", "autoapprove", "sign off on", "aprueba", "apruebe",
  "aprobar", "autoriza", "autorice", "approuve", "approuvez", "approuver", "autorise", "autorisez", "aprove", "aprova", "aprovar",
  "autorize", "genehmige", "genehmigen sie", "bewillige", "gib frei", "geben sie frei", "winke durch",
]);
// Not "without asking" or "no questions asked": refunds without questions are a common, benign policy.
// prettier-ignore
const WITHOUT_CHECKING = latinStem([
  "without (?:any |a |first )?(?:checking|check|checks|verifying|verification|validating|validation|review|reviewing|confirming|confirmation|looking|approval|authori[sz]ation|proof|investigating)",
  "regardless of (?:the )?(?:checks|policy|policies|rules|verification|amount|evidence)",
  "even if (?:the )?(?:checks?|verification|validation|review) fails?",
  "sin (?:verificar|comprobar|revisar|validar|verificación|comprobación|revisión)",
  "sans (?:vérifier|vérification|contrôle|contrôler|examen|justificatif)",
  "sem (?:verificar|checar|conferir|revisar|validar|verificação|conferência)",
  "ohne (?:prüfung|zu prüfen|kontrolle|zu kontrollieren|überprüfung|zu überprüfen|nachweis)",
]);
// prettier-ignore
const SKIP = latin([
  "skip", "bypass", "disable", "turn off", "switch off", "circumvent", "omit", "suppress", "waive", "drop", "ignore",
  "get around", "stop doing", "stop running", "stop performing", "don't (?:do|run|perform|bother with)",
  "do not (?:do|run|perform|bother with)", "no need for", "no need to (?:do|run|perform)", "omite", "omita", "sáltate", "salta",
  "desactiva", "desactive", "evita", "ignora", "elude", "saute", "sautez", "ignore", "ignorez", "désactive", "désactivez",
  "contourne", "contournez", "passe", "passez", "pule", "pula", "ignore", "desative", "desativa", "contorne", "dispense",
  "überspringe", "überspringen sie", "deaktiviere", "deaktivieren sie", "umgehe", "umgehen sie", "ignoriere", "lass weg",
  "lassen sie weg", "schalte ab",
]);
// prettier-ignore
const CHECKS = latinStem([

  "(?:the |all |any |every |these |those |your )*(?:\\w+ )?(?:checks|check|verification|verifications|review|reviews|approval step|approvals?|safeguards|guardrails|screening|moderation|filters|filtering|compliance|kyc|aml|authentication|2fa|mfa|fraud (?:checks?|screening|detection)|security (?:checks?|measures|controls)|safety (?:checks?|filters|measures|rules))",
  "(?:las |los |todas las |todos los )?(?:verificaciones|comprobaciones|controles|revisiones|validaciones)",
  "(?:les |toutes les |tous les )?(?:vérifications|contrôles|validations|examens)",
  "(?:as |os |todas as |todos os )?(?:verificações|checagens|controles|conferências|validações|revisões)",
  // German joins nouns: "Betrugsprüfungen", "Identitätskontrollen".
  "(?:alle |die |sämtliche )?\\p{L}*(?:prüfungen|kontrollen|überprüfungen|freigaben)",
]);

const LATIN_RULES: InjectionRule[] = [
  rule(
    "override.discard-instructions",
    "instruction_override",
    "latin",
    `${DISCARD}\\s+(?:(?:all|any|each|every|of|the|your|my|these|those|its|their|such|todas?|todos?|las|los|tus|sus|toutes?|tous|les|tes|vos|as|os|suas?|seus?|alle|deine|ihre|die|sämtliche)\\s+){0,3}(?:${EARLIER}\\s+(?:\\p{L}+\\s+)?${INSTRUCTIONS}|${INSTRUCTIONS}\\s+(?:\\p{L}+\\s+)?${EARLIER})`,
    "Tells the model to ignore or override the instructions it was given.",
  ),
  rule(
    "override.discard-your-instructions",
    "instruction_override",
    "latin",
    `${DISCARD}\\s+(?:all\\s+(?:of\\s+)?)?(?:your|all|tus|todas\\s+las|tes|toutes\\s+les|vos|suas|todas\\s+as|deine|alle|ihre)\\s+(?:own\\s+)?${INSTRUCTIONS}`,
    "Tells the model to ignore its instructions.",
  ),
  rule(
    "override.discard-what-you-were-told",
    "instruction_override",
    "latin",
    near(DISCARD, TOLD_BEFORE, 12),
    "Tells the model to set aside what it was told before.",
  ),
  rule(
    "override.german-verb-last",
    "instruction_override",
    "latin",
    `${latinStem(["lass", "lassen sie", "setze", "setzen sie", "beachte", "beachten sie", "befolge", "befolgen sie"])}\\s+(?:\\p{L}+\\s+){0,3}?${EARLIER}\\s+${INSTRUCTIONS}\\s+(?:beiseite|außer acht|außer kraft|nicht mehr|nicht)`,
    "Tells the model to ignore or override the instructions it was given.",
  ),
  rule(
    "override.from-now-on",
    "instruction_override",
    "latin",
    near(FROM_NOW, ALWAYS_OR_YOU, 30),
    'Gives the model a standing order ("from now on always …") that replaces its instructions.',
  ),
  rule(
    "override.persona",
    "instruction_override",
    "latin",
    `${latinStem(["you are now", "from now on,? you are", "you're now", "act as", "pretend (?:to be|you are)", "eres ahora", "ahora eres", "tu es maintenant", "vous êtes maintenant", "agora você é", "du bist jetzt", "sie sind jetzt"])}\\s+(?:an?\\s+|un\\s+|una\\s+|ein\\s+|eine\\s+)?(?:dan(?![\\p{L}])|jailbroken|unrestricted|unfiltered|uncensored|in developer mode|developer mode|evil|free of (?:all |any )?(?:rules|restrictions)|no longer bound|without (?:any )?(?:rules|restrictions|limits|filters)|sin restricciones|sans restrictions|sem restrições|ohne einschränkungen)`,
    "Tries to give the model a new, unrestricted persona.",
  ),
  rule(
    "override.new-instructions",
    "instruction_override",
    "latin",
    `(?:^|\\n|[.!?]\\s+)[ \\t>*_-]*${latinStem(["new", "updated", "real", "actual", "true", "revised", "nuevas", "nouvelles", "novas", "neue"])}\\s+(?:system\\s+)?${latinStem(["instructions", "system prompt", "rules", "orders", "instrucciones", "reglas", "consignes", "instructions", "instruções", "regras", "anweisungen", "regeln"])}\\s*:`,
    "Announces replacement instructions for the model.",
  ),
  rule(
    "exfiltration.send-data",
    "data_exfiltration",
    "latin",
    `${SEND}${SENTENCE}{0,80}?${SENSITIVE_DATA}${SENTENCE}{0,100}?${DESTINATION}`,
    "Asks to send records, credentials or card data to an outside address.",
    { negatable: true },
  ),
  rule(
    "secret.ask-person",
    "secret_request",
    "latin",
    `${ASK}\\s+(?:${PERSON})${SENTENCE}{0,60}?${USER_SECRET}`,
    "Asks a person for secrets: passwords, codes or full card details.",
    {
      negatable: true,
      // The last four digits identify a card; resetting or changing a password is the safe flow.
      accept: (match) =>
        !/last\s+(?:4|four)|ending in|derniers chiffres|ultimos|letzten vier|reset|change|update|recover|forgot|restablec|cambi|reinitialis|redefin|zurucksetz|andern/iu.test(
          match[0],
        ),
    },
  ),
  rule(
    "secret.give-me",
    "secret_request",
    "latin",
    `${latinStem(["give me", "tell me", "send me", "show me", "share with me", "what is", "what's", "dame", "dime", "envíame", "donne-moi", "dis-moi", "envoie-moi", "me dê", "me diga", "gib mir", "sag mir", "nenne mir"])}\\s+(?:your|the|all|tu|tus|ton|ta|tes|votre|vos|seu|sua|dein|deine|ihr|ihre)\\s+${USER_SECRET}`,
    "Asks for secrets: passwords, codes or full card details.",
    { negatable: true },
  ),
  rule(
    "secret.reveal-system",
    "secret_request",
    "latin",
    `${latin(["reveal", "print", "show", "output", "repeat", "display", "dump", "leak", "disclose", "tell me", "give me", "list", "revela", "muestra", "imprime", "révèle", "affiche", "mostre", "revele", "zeige", "verrate", "gib aus"])}\\s+(?:me\\s+)?(?:(?:your|the|all|all of your|all the|any|tu|tus|el|ton|ta|le|o|seu|dein|deine|den|die)\\s+(?:(?:hidden|secret|initial|original|full|stored)\\s+)?(?:system prompt|system message|hidden instructions|initial instructions|original instructions|developer message|prompt del sistema|instrucciones ocultas|prompt système|instructions cachées|prompt do sistema|systemprompt|versteckten anweisungen)|(?:your|all|all of your|all the|every)\\s+(?:stored\\s+)?(?:api[ _-]?keys?|secret keys?|secrets|access tokens?|credentials|passwords|private keys?|env(?:ironment)? variables)|(?:the\\s+)?contents? of (?:the\\s+)?(?:\\.env|environment|process\\.env|~/\\.ssh|id_rsa)|environment variables)`,
    "Asks the model to reveal its system prompt or stored secrets.",
    { negatable: true },
  ),
  rule(
    "policy.approve-everything",
    "policy_override",
    "latin",
    `(?:${ALWAYS}\\s+(?:\\p{L}+\\s+)?${APPROVE}|${APPROVE_OUTRIGHT}\\s+(?:\\p{L}+\\s+)?${EVERYTHING}(?![\\p{L}])|${APPROVE}${SENTENCE}{0,60}?${WITHOUT_CHECKING})`,
    "Tells the agent to approve everything or to skip its checks.",
    { negatable: true },
  ),
  rule("policy.skip-checks", "policy_override", "latin", `${SKIP}\\s+${CHECKS}`, "Tells the agent to skip or disable its checks.", {
    negatable: true,
    // "skip the page check", "drop the last check" are routine; a policy override names a safeguard.
    accept: (match) =>
      /verifica|review|approval|safeguard|guardrail|screening|moderation|filter|compliance|kyc|aml|authenticat|2fa|mfa|fraud|security|safety|all\s+checks|every\s+check|any\s+checks|comprobac|control|revis|checage|conferenc|prufung|kontroll|freigabe/u.test(
        match[0],
      ),
  }),
  rule(
    "policy.no-need-to-check",
    "policy_override",
    "latin",
    latinStem([
      "(?:you )?(?:do not|don't|dont|no longer) need to (?:check|verify|validate|confirm|review|ask for approval)",
      "there is no need to (?:check|verify|validate|review)",
      "(?:never|don't|do not) (?:reject|refuse|deny|decline) (?:any|a single|anything|requests?|refunds?|claims?|changes?|deltas?|orders?|transactions?)",
      "(?:treat|mark|consider) (?:every|all|each|any) (?:\\p{L}+ )?(?:as|to be) (?:approved|valid|verified|safe|legitimate|trusted)",
      "no (?:necesitas|hace falta) (?:verificar|comprobar|revisar)",
      "nunca rechaces",
      "jamais refuser",
      "ne refuse jamais",
      "ne refusez jamais",
      "pas besoin de (?:vérifier|contrôler)",
      "não precisa (?:verificar|conferir|checar)",
      "nunca recuse",
      "nunca rejeite",
      "(?:du musst|sie müssen) (?:nichts|nicht) (?:mehr )?(?:prüfen|kontrollieren)",
      "lehne niemals",
      "lehnen sie niemals",
    ]),
    "Tells the agent to skip its checks or never refuse.",
  ),
];

// ---- other scripts (Mandarin Chinese, Japanese, Hindi, Bengali, Arabic, Russian) ---------------------

// prettier-ignore
const N_DISCARD = native([
  "忽略", "忽視", "忽视", "无视", "無視", "不要理会", "不要理會", "别管", "別管", "忘掉", "忘记", "忘記", "抛开", "拋開", "放下", "放弃", "放棄", "不再遵守", "不要遵守",
  "不用遵守", "不必遵守", "绕过", "繞過", "覆盖", "作废", "作廢", "無視", "むし", "忘れ", "わすれ", "従わな", "従うな", "破棄", "取り消", "気にしな", "捨て", "リセット",
  "अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जा", "भूल जाओ", "भूल जाएं", "भूल जाइए", "मत मानो", "मत मानें", "पालन मत", "पालन न",
  "छोड़ दो", "छोड़ दें", "उपेक्षा", "दरकिनार", "रद्द कर", "উপেক্ষা", "ভুলে যাও", "ভুলে যান", "ভুলে যা", "মেনো না", "মানবেন না",
  "মানবে না", "অগ্রাহ্য", "বাদ দাও", "বাদ দিন", "পালন করবেন না", "পালন কোরো না", "উপেক্ষা কর", "تجاهل", "انس", "انسي", "انسى",
  "تناس", "لا تتبع", "لا تلتزم", "توقف عن اتباع", "تخط", "اهمل", "أهمل", "الغ", "ألغ", "اترك", "تجاوز", "игнорир", "проигнорир",
  "забуд", "не обращай внимания", "не обращайте внимания", "отбрось", "отбросьте", "отмени", "пренебреги", "не следуй",
  "не следуйте", "не выполняй", "перестань следовать", "перестаньте следовать", "сбрось", "выбрось", "откажись от",
]);
// prettier-ignore
const N_PRIOR = native([
  "之前", "以前", "先前", "上面的", "上述", "前面的", "原来的", "原來的", "原有的", "最初的", "系统", "系統", "之前所有", "以前所有", "你被告知的", "你收到的", "以前の",
  "これまでの", "前の", "上記の", "先ほどの", "最初の", "元の", "システムの", "今までの", "これまでに", "既存の", "पिछले", "पहले के", "पहले दिए गए", "पूर्व",
  "ऊपर के", "ऊपर दिए गए", "मूल", "सिस्टम के", "पहले बताई गई", "पहले बताए गए", "जो कुछ", "আগের", "পূর্ববর্তী", "পূর্বের", "উপরের",
  "মূল", "সিস্টেমের", "আগে দেওয়া", "যা বলা হয়েছে", "যা কিছু", "السابق", "الأصلي", "الاولي", "الأولي", "المسبق", "للنظام",
  "النظام", "كل ما قيل", "ما سبق", "اعلاه", "أعلاه", "القديم", "предыдущ", "прежн", "предшествующ", "изначальн", "исходн",
  "системн", "вышеуказанн", "прошл", "ранее", "всё, что", "все, что", "всё что", "все что", "до этого",
]);
// prettier-ignore
const N_INSTRUCTIONS = native([
  "指令", "指示", "说明", "說明", "规则", "規則", "提示", "要求", "设定", "設定", "命令", "约束", "約束", "限制", "一切", "内容", "內容", "指示", "命令", "ルール", "指令",
  "プロンプト", "設定", "規則", "制約", "こと", "内容", "निर्देश", "नियम", "आदेश", "हिदायत", "बातें", "बताया", "कहा", "নির্দেশ", "নিয়ম",
  "আদেশ", "কথা", "বলা হয়েছে", "تعليمات", "التعليمات", "اوامر", "الأوامر", "الاوامر", "قواعد", "القواعد", "ارشادات", "الإرشادات",
  "الارشادات", "توجيهات", "التوجيهات", "رسائل", "قيل لك", "инструкц", "указани", "правил", "команд", "сообщени", "установк",
  "ограничени", "говорил", "сказал", "получил",
]);
// prettier-ignore
/** "everything you were told before": earlier instructions without the word for them. */
// prettier-ignore
const N_TOLD = native([
  "被告知的", "告诉你的", "告訴你的", "对你说的", "對你說的", "你收到的所有",
  "言われたこと", "指示されたこと", "教えられたこと",
  "बताया गया", "बताई गई", "कहा गया",
  "বলা হয়েছে", "দেওয়া হয়েছে",
  "ما قيل لك", "ما طلب منك", "ما تم اخبارك",
  "что тебе говорили", "что вам говорили", "что тебе сказали", "что вам сказали", "что тебе велели",
]);
// prettier-ignore
const N_FROM_NOW = native([
  "从现在开始", "從現在開始", "从现在起", "從現在起", "今后", "今後", "以后一律", "以後一律", "从今以后", "從今以後", "从此以后", "今後は", "これからは", "今からは", "以降は", "今から",
  "अब से", "आज से", "इसके बाद से", "अबसे", "এখন থেকে", "আজ থেকে", "এরপর থেকে", "من الان فصاعدا", "من الآن فصاعدا", "من الان",
  "من الآن", "ابتداء من الان", "من هنا فصاعدا", "منذ الان", "بعد الان", "с этого момента", "отныне", "впредь", "с этой минуты",
  "теперь всегда", "теперь ты",
]);
// prettier-ignore
const N_ALWAYS_OR_YOU = native([
  "总是", "總是", "永远", "永遠", "一律", "始终", "始終", "你", "都要", "必须", "必須", "批准", "同意", "常に", "必ず", "いつも", "すべて", "全て", "あなた", "承認",
  "हमेशा", "कभी", "तुम", "आप", "सभी", "हर", "সবসময়", "সর্বদা", "কখনো", "তুমি", "আপনি", "সব", "دائما", "دائمًا", "ابدا", "أبدا",
  "انت", "أنت", "يجب", "كل", "وافق", "всегда", "никогда", "ты", "вы", "одобря", "должен", "должна",
]);
// prettier-ignore
const N_SEND = native([
  "发送", "發送", "发到", "發到", "发给", "發給", "寄给", "寄給", "上传", "上傳", "转发", "轉發", "泄露", "洩露", "提交到", "传到", "傳到", "邮件", "郵件", "导出到",
  "導出到", "送信", "送って", "送れ", "送付", "メールで", "メールして", "転送", "アップロード", "投稿", "共有して", "流出", "送る", "भेज", "ईमेल", "मेल कर", "अपलोड",
  "पोस्ट कर", "फॉरवर्ड", "लीक", "साझा कर", "शेयर कर", "পাঠাও", "পাঠান", "পাঠিয়ে", "ইমেল", "ইমেইল", "আপলোড", "পোস্ট কর", "ফাঁস",
  "শেয়ার", "ফরোয়ার্ড", "ارسل", "أرسل", "ارسلي", "أرسلي", "ابعث", "ارفع", "انشر", "حول", "سرب", "شارك", "أعد توجيه",
  "اعد توجيه", "отправ", "пришл", "перешл", "вышл", "загруз", "опубликуй", "слей", "слейте", "передай", "передайте", "скинь",
  "скиньте",
]);
// prettier-ignore
const N_DATA = native([
  "记录", "記錄", "数据", "數據", "资料", "資料", "凭证", "憑證", "凭据", "憑據", "密码", "密碼", "卡号", "卡號", "信用卡", "银行卡", "銀行卡", "客户信息", "客戶信息", "数据库",
  "數據庫", "聊天记录", "个人信息", "個人信息", "記録", "レコード", "データ", "顧客情報", "個人情報", "認証情報", "資格情報", "パスワード", "カード番号", "カード情報", "クレジットカード",
  "データベース", "履歴", "रिकॉर्ड", "डेटा", "डाटा", "जानकारी", "क्रेडेंशियल", "पासवर्ड", "कार्ड", "डेटाबेस", "इतिहास", "विवरण",
  "রেকর্ড", "ডেটা", "ডাটা", "তথ্য", "ক্রেডেনশিয়াল", "পাসওয়ার্ড", "কার্ড", "ডাটাবেস", "ডেটাবেস", "ইতিহাস", "سجلات", "بيانات",
  "معلومات", "كلمات المرور", "كلمة المرور", "كلمه المرور", "ارقام البطاقات", "أرقام البطاقات", "بطاقات", "البطاقة",
  "قاعدة البيانات", "سجل المحادثات", "запис", "данные", "данных", "учетные", "учётные", "парол", "карт", "реквизит",
  "базу данных", "базы данных", "истори", "переписк",
]);
const N_DESTINATION = `(?:[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+|https?://|www\\.|webhook|${native([
  "外部",
  "外部の",
  "बाहरी",
  "बाहर",
  "বাহ্যিক",
  "বাইরের",
  "خارجي",
  "الخارج",
  "خارج",
  "внешн",
  "наружу",
  "сторонн",
])})`;
// prettier-ignore
const N_ASK = native([
  "让", "讓", "要求", "请", "請", "叫", "询问", "詢問", "索要", "问", "問", "入力して", "入力させ", "教えて", "聞いて", "尋ね", "求め", "提供して", "送信して", "確認して",
  "伺", "尋ねて", "入力を", "मांग", "माँग", "पूछ", "लिखवा", "टाइप", "दर्ज", "बताने", "बताएं", "बताओ", "कहें", "कहो", "চাও", "চান",
  "চাইবে", "চাইবেন", "জিজ্ঞাসা", "জিজ্ঞেস", "লিখতে", "টাইপ", "দিতে", "জানাতে", "বলুন", "বলো", "اطلب", "اطلبي", "اسال", "اسأل",
  "اجعل", "دع", "اطلب من", "попрос", "запрос", "потребуй", "спроси", "пусть", "узнай", "выясни",
]);
// prettier-ignore
const N_SECRET = native([
  "银行卡号", "銀行卡號", "信用卡号", "信用卡號", "卡号", "卡號", "完整的银行卡", "完整的信用卡", "信用卡信息", "信用卡資料", "卡片信息", "安全码", "安全碼", "密码", "密碼", "验证码",
  "驗證碼", "pin码", "cvv", "カード番号", "カード情報", "クレジットカード", "セキュリティコード", "パスワード", "暗証番号", "認証コード", "कार्ड का पूरा", "कार्ड के पूरे",
  "कार्ड नंबर", "कार्ड नम्बर", "कार्ड की पूरी", "कार्ड विवरण", "कार्ड का विवरण", "सीवीवी", "पासवर्ड", "पिन", "ओटीपी", "কার্ডের",
  "কার্ড নম্বর", "সিভিভি", "পাসওয়ার্ড", "পিন", "ওটিপি", "بيانات البطاقة", "رقم البطاقة", "رمز الأمان", "رمز الامان",
  "كلمة المرور", "كلمه المرور", "الرقم السري", "رمز التحقق", "данные карты", "номер карты", "cvv", "cvc", "код безопасности",
  "пароль", "пин-код", "пин", "код из смс", "реквизиты карты",
]);
// prettier-ignore
const N_APPROVE_ALL = native([
  "批准所有", "批准全部", "批准一切", "批准每", "批准任何", "通过所有", "通過所有", "同意所有", "一律批准", "一律通过", "一律通過", "全部批准", "全部通过", "所有都批准", "总是批准", "總是批准",
  "都批准", "すべて承認", "全て承認", "全部承認", "すべての返金を承認", "常に承認", "すべて許可", "全て許可", "何でも承認", "無条件で承認", "सभी को मंजूर", "सब कुछ मंजूर",
  "हर रिफंड", "सभी रिफंड", "हर अनुरोध", "सभी अनुरोध", "हमेशा मंजूर", "हमेशा स्वीकृत", "सब मंजूर", "स्वीकृत करें", "সব অনুমোদন",
  "সমস্ত অনুমোদন", "প্রতিটি রিফান্ড", "সব রিফান্ড", "সবসময় অনুমোদন", "সব অনুরোধ", "সমস্ত অনুরোধ", "وافق على كل",
  "وافق على جميع", "اقبل كل", "اقبل جميع", "اعتمد كل", "اعتمد جميع", "وافق دائما", "الموافقة على جميع", "الموافقة على كل",
  "одобряй все", "одобряй всё", "одобряй каждый", "одобряй любые", "одобри все", "одобри всё", "всегда одобряй", "одобряйте все",
  "одобряйте всё",
]);
// prettier-ignore
const N_WITHOUT_CHECK = native([
  "不检查", "不檢查", "无需检查", "無需檢查", "不用检查", "不必检查", "跳过检查", "跳過檢查", "不要检查", "不核实", "不核實", "无需核实", "无需验证", "跳过验证", "跳過驗證", "无需审核",
  "跳过审核", "不经审核", "不經審核", "绕过检查", "关闭检查", "確認せず", "確認しないで", "チェックせず", "チェックしないで", "検証せず", "審査なしで", "確認なしで", "チェックを省略", "確認を省略",
  "チェックをスキップ", "審査をスキップ", "検証をスキップ", "बिना जांच", "बिना जाँच", "बिना जांचे", "बिना जाँचे", "बिना सत्यापन", "बिना पुष्टि",
  "बिना वेरिफिकेशन", "जांच छोड़", "जाँच छोड़", "जांच मत", "जाँच मत", "सत्यापन छोड़", "যাচাই না করে", "যাচাই ছাড়া",
  "যাচাই ছাড়াই", "পরীক্ষা না করে", "পরীক্ষা ছাড়া", "চেক না করে", "চেক ছাড়া", "যাচাই বাদ", "بدون تحقق", "بدون التحقق",
  "بدون فحص", "بدون مراجعة", "دون تحقق", "دون التحقق", "دون فحص", "دون مراجعة", "تخط التحقق", "تخطى التحقق", "تجاوز التحقق",
  "عطل التحقق", "без проверк", "без провер", "не проверяя", "пропускай проверк", "пропусти проверк", "отключи проверк",
  "обойди проверк", "без верификаци",
]);
const ROLE_WORD =
  "(?:system|system prompt|system message|assistant|developer|sistema|système|systeme|systemnachricht|systemanweisung|система|системное сообщение|系统|系統|系统提示|系統提示|システム|システムプロンプト|सिस्टम|النظام|نظام|সিস্টেম)";

const NATIVE_RULES: InjectionRule[] = [
  rule(
    "override.discard-instructions.native",
    "instruction_override",
    "native",
    nearEither(N_DISCARD, `(?:${nearEither(N_PRIOR, N_INSTRUCTIONS, 14)}|${N_TOLD})`, 24),
    "Tells the model to ignore or override the instructions it was given.",
  ),
  rule(
    "override.from-now-on.native",
    "instruction_override",
    "native",
    near(N_FROM_NOW, N_ALWAYS_OR_YOU, 24),
    'Gives the model a standing order ("from now on always …") that replaces its instructions.',
  ),
  rule(
    "exfiltration.send-data.native",
    "data_exfiltration",
    "native",
    `(?:${nearEither(N_SEND, N_DATA, 40)}${SENTENCE}{0,80}?${N_DESTINATION}|${N_DESTINATION}${SENTENCE}{0,80}?${nearEither(N_SEND, N_DATA, 40)}|${N_DATA}${SENTENCE}{0,60}?${N_DESTINATION}${SENTENCE}{0,100}?${N_SEND})`,
    "Asks to send records, credentials or card data to an outside address.",
    { negatable: true },
  ),
  rule(
    "secret.ask-person.native",
    "secret_request",
    "native",
    nearEither(N_ASK, N_SECRET, 40),
    "Asks a person for secrets: passwords, codes or full card details.",
    { negatable: true },
  ),
  rule(
    "policy.approve-everything.native",
    "policy_override",
    "native",
    `(?:${N_APPROVE_ALL}|${N_WITHOUT_CHECK})`,
    "Tells the agent to approve everything or to skip its checks.",
  ),
];

// ---- any script ------------------------------------------------------------------------------------

const SECRET_WORD =
  "(?:key|token|secret|pass|pwd|card|cvv|cvc|ssn|cred|cookie|session|history|conversation|chat|memory|data|record|email|prompt|context|summary|pii|user|account)";

const ANY_RULES: InjectionRule[] = [
  rule(
    "role.chat-token",
    "role_marker",
    "any",
    "<\\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_turn|start_of_turn)\\|>",
    "Contains a chat-template token that can fake a new message with another role.",
  ),
  rule(
    "role.template-marker",
    "role_marker",
    "any",
    "\\[/?INST\\]|<</?SYS>>|</?(?:system|system_prompt|sys)>|\\[/?(?:system|system_prompt)\\]|<start_of_turn>|<end_of_turn>",
    "Contains an instruction or system marker of a chat template.",
  ),
  rule(
    "role.speaker-line",
    "role_marker",
    "any",
    `(?:^|\\n|[.!?。！？]\\s*)[ \\t>*_#\\[(-]*${ROLE_WORD}[ \\t*_\\])]*[:：]`,
    "Starts a line with a role name, as if a new system or assistant message began.",
  ),
  rule(
    "role.header",
    "role_marker",
    "any",
    `(?:^|\\n)[ \\t]*#{1,6}[ \\t]*(?:new[ \\t]+)?(?:instructions?|${ROLE_WORD})[ \\t]*:?[ \\t]*(?=\\n|$)`,
    'Contains an instruction-template header ("### System") that can start a fake prompt.',
  ),
  rule(
    "exfiltration.leaking-url",
    "data_exfiltration",
    "any",
    `(?:https?://|www\\.)[^\\s)"'>]*?(?:[?&#/][\\w.-]*=?)(?:\\{\\{?\\s*[\\w. -]*${SECRET_WORD}[\\w. -]*\\}\\}?|\\$\\{?[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASS|PASSWORD|CARD|DATA|SSN)[A-Za-z_]*\\}?|<[\\w -]*${SECRET_WORD}[\\w -]*>|\\[[\\w -]*${SECRET_WORD}[\\w -]*\\]|%7B%7B|%7B[\\w%.-]*${SECRET_WORD})`,
    "Contains a URL with a placeholder for secrets or records, a way to leak data through a link.",
  ),
  rule(
    "exfiltration.shell",
    "data_exfiltration",
    "any",
    "(?<![\\p{L}])(?:curl|wget|fetch|Invoke-WebRequest)(?![\\p{L}])[^\\n]{0,200}\\$\\{?[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS)(?![\\p{L}])",
    "Contains a command that sends a secret from the environment over the network.",
  ),
];

// ---- as written ----------------------------------------------------------------------------------

const HIDING = "\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}";

const RAW_RULES: InjectionRule[] = [
  rule(
    "hidden.invisible-characters",
    "hidden_text",
    "raw",
    `[${HIDING}]+`,
    "Contains invisible characters (zero-width, bidi override or tag characters) that can hide text from a reviewer.",
  ),
  rule(
    "hidden.html-comment",
    "hidden_text",
    "raw",
    // The generator's own `<!-- bullet_ids: [...] -->` citation comment is not hidden text.
    "<!--(?!\\s*bullet_ids:)([\\s\\S]{0,1000}?)-->",
    "Hides instructions in an HTML comment that a rendered view would not show.",
    {
      accept: (match) =>
        /\b(?:ignore|disregard|instructions?|system prompt|prompt|assistant|you (?:must|should|are|will)|do not (?:tell|mention|reveal|show)|api[ _-]?keys?|passwords?|secrets?|credentials|tokens?|execute|exfiltrate)\b/iu.test(
          match[1] ?? "",
        ),
    },
  ),
  rule(
    "hidden.base64-blob",
    "hidden_text",
    "raw",
    // A long run of the base64 alphabet with upper case, lower case and digits (so not hex or a word).
    "[A-Za-z0-9+/]{200,}={0,2}",
    "Contains a long base64 blob that can smuggle encoded instructions past a reviewer.",
    { accept: (match) => /[A-Z]/u.test(match[0]) && /[a-z]/u.test(match[0]) && /\d/u.test(match[0]) },
  ),
];

// The keyword families each rule needs (see InjectionRule.gates); lists are literals for families
// that start with a pattern.
const DESTINATION_LITERALS = ["@", "http", "www.", "webhook", "pastebin", "extern", "out", "exterior", "outside", "à l'ext"];
const USER_SECRET_LITERALS = [
  "card",
  "cvv",
  "cvc",
  "security",
  "pin",
  "pass",
  "credential",
  "one",
  "otp",
  "2fa",
  "verification",
  "ssn",
  "social",
  "bank",
  "online",
  "seed",
  "recovery",
  "private",
  "maiden",
  "tarjeta",
  "seguridad",
  "contraseña",
  "clave",
  "carte",
  "cryptogramme",
  "sécurité",
  "mot de passe",
  "code",
  "coordonnées",
  "cartão",
  "código",
  "senha",
  "palavra",
  "kartendaten",
  "kartennummer",
  "kreditkarten",
  "prüfnummer",
  "passwort",
  "kennwort",
  "sicherheitscode",
  "datos",
  "número",
  "numéro",
  "données",
  "dados",
];
const NEEDS: Record<string, readonly (string | readonly string[])[]> = {
  "override.discard-instructions": [DISCARD, INSTRUCTIONS, EARLIER],
  "override.discard-your-instructions": [DISCARD, INSTRUCTIONS],
  "override.discard-what-you-were-told": [
    DISCARD,
    ["every", "anything", "all", "whatever", "what", "above", "todo", "lo anterior", "tout", "tudo", "alles"],
  ],
  "override.german-verb-last": [EARLIER, INSTRUCTIONS],
  "override.from-now-on": [FROM_NOW],
  "override.persona": [["now", "act as", "pretend", "ahora", "maintenant", "agora", "jetzt"]],
  "override.new-instructions": [[":"]],
  "exfiltration.send-data": [SEND, DESTINATION_LITERALS],
  "secret.ask-person": [ASK, PERSON, USER_SECRET_LITERALS],
  "secret.give-me": [USER_SECRET_LITERALS],
  "secret.reveal-system": [
    [
      "reveal",
      "print",
      "show",
      "output",
      "repeat",
      "display",
      "dump",
      "leak",
      "disclose",
      "tell",
      "give",
      "list",
      "revela",
      "muestra",
      "imprime",
      "révèle",
      "affiche",
      "mostre",
      "revele",
      "zeige",
      "verrate",
      "gib",
    ],
  ],
  "policy.approve-everything": [APPROVE],
  "policy.skip-checks": [SKIP],
  "policy.no-need-to-check": [
    [
      "need",
      "never",
      "don't",
      "do not",
      "treat",
      "mark",
      "consider",
      "necesitas",
      "hace falta",
      "nunca",
      "jamais",
      "refuse",
      "besoin",
      "precisa",
      "musst",
      "müssen",
      "lehne",
    ],
  ],
  "override.discard-instructions.native": [N_DISCARD],
  "override.from-now-on.native": [N_FROM_NOW],
  "exfiltration.send-data.native": [N_SEND, N_DATA],
  "secret.ask-person.native": [N_ASK, N_SECRET],
  "role.chat-token": [["<|"]],
  "role.template-marker": [["[", "<"]],
  "role.header": [["#"]],
  "role.speaker-line": [[":", "："]],
  "exfiltration.leaking-url": [["http", "www."]],
  "exfiltration.shell": [["curl", "wget", "fetch", "invoke-webrequest"]],
  "hidden.html-comment": [["<!--"]],
};

export const INJECTION_RULES: readonly InjectionRule[] = [...RAW_RULES, ...ANY_RULES, ...LATIN_RULES, ...NATIVE_RULES].map(
  (rule): InjectionRule => ({ ...rule, gates: gatesOf(NEEDS[rule.id] ?? []) }),
);

// prettier-ignore
const NEGATION_WORDS = latin([
  "never", "not", "don't", "dont", "do not", "avoid", "without", "no", "refuse to", "must not", "mustn't", "shouldn't", "should not",
  "cannot", "can't", "nunca", "jamás", "jamais", "ne", "não", "nie", "niemals", "nicht", "kein", "keine",
]);
const NEGATION = new RegExp(`(?:${NEGATION_WORDS}|${latinStem(["n'"])})${SENTENCE}*$`, "iu");
// The other scripts' negations; Japanese, Hindi and Bengali put them after the verb.
const NATIVE_NEGATION =
  /(?<![\p{L}\p{M}])(?:не|никогда|нельзя|न|नहीं|मत|कभी|না|নয়|কখনো|لا|ابدا|أبدا)(?![\p{L}\p{M}])|不要|切勿|绝不|絕不|不得|禁止|别|別|ないで|ません|しない|ないこと|يمنع|ممنوع/u;

/**
 * The clause before the match says "never", "do not", "avoid" …, so the text forbids the act; for
 * rules of the other scripts, also a negation inside the match or just after it.
 */
export function isNegated(text: string, at: number, length: number, reads: InjectionRule["reads"]): boolean {
  const before = text.slice(Math.max(0, at - 80), at);
  // The clause, not the whole sentence: "… without checking, and ask for the card number" is not advice.
  const clause = before.split(/[.!?;,:\n。！？，、]|\s(?:and|but|then|y|pero|et|mais|puis|e|mas|und|aber|dann)\s/u).at(-1) ?? "";
  if (NEGATION.test(clause)) return true;
  if (reads !== "native") return false;
  const after = text.slice(at + length, at + length + 12).split(/[.!?;\n。！？]/u)[0] ?? "";
  return NATIVE_NEGATION.test(clause + text.slice(at, at + length) + after);
}
