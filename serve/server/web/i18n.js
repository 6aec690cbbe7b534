// The chat page's words in Brazilian Portuguese and English, and the choice between them.
//
// The language comes from the selector when the user picked one (saved in localStorage), else from
// navigator.language; static elements name their string with data-i18n / data-i18n-placeholder /
// data-i18n-title, and `applyLanguage()` rewrites them in place, so switching needs no reload.

const STRINGS = {
  en: {
    "app.title": "RQ-RAG chat",
    "app.tagline": "Answers that refine the question, search, and cite their sources",
    "nav.new": "New conversation",
    "nav.chat": "Chat",
    "nav.review": "Literature review",
    "source.open": "Open source {n}: {name}",
    "nav.history": "Conversations",
    "nav.noConversations": "No conversations yet.",
    "nav.turns": "{n} questions",
    "docs.title": "Documents",
    "docs.upload": "Upload",
    "docs.choose": "Choose file",
    "docs.noFile": "No file chosen",
    "docs.chooseFile": "Choose a PDF, TXT, MD, HTML or DOCX file first.",
    "docs.empty": "No documents yet.",
    "docs.delete": "Delete",
    "docs.shared": "shared",
    "docs.sharedTitle": "A shared library: everyone searches it, only an admin changes it",
    "docs.pages": "{n} pages",
    "docs.chunks": "{n} passages",
    "docs.sending": "Sending {name}…",
    "docs.queued": "{name}: waiting in line…",
    "docs.reading": "{name}: reading pages {done}/{total}…",
    "docs.embedding": "{name}: indexing passages {done}/{total}…",
    "docs.searchable": "{name}: searchable by its words; understanding passages {done}/{total}…",
    "docs.working": "{name}: processing…",
    "docs.done": "{name} is ready to search.",
    "docs.duplicate": "{name} is already in the library.",
    "docs.failed": "{name} could not be added: {message}",
    "mem.title": "Memories",
    "mem.empty": "Nothing remembered yet.",
    "mem.delete": "Forget",
    "settings.title": "Settings",
    "settings.apiKey": "API key (optional)",
    "key.title": "API key",
    "key.help": "Ask the server's administrator for your key (rqrag users add).",
    "key.submit": "Sign in",
    "key.empty": "Paste your key first.",
    "key.wrong": "This key was not accepted. Check it and try again.",
    "key.failed": "The key could not be checked: {message}",
    "user.admin": "admin",
    "user.signOut": "Sign out",
    "user.signOutTitle": "Forget the key kept in this browser",
    "settings.language": "Language",
    "controls.depth": "Depth",
    "controls.strategy": "Strategy",
    "controls.retriever": "Search in",
    "input.placeholder": "Ask a question… (Enter sends, Shift+Enter for a new line)",
    "input.send": "Send",
    "empty.title": "Ask anything",
    "empty.body":
      "The assistant rewrites, splits or clarifies your question when useful, searches, and answers with the sources it read.",
    "status.searching": "Searching…",
    "status.refining": "Refining the question…",
    "status.answering": "Writing the answer…",
    "status.writing": "Reading the sources and writing the answer…",
    "traj.summary": "Reasoning: {n} steps",
    "traj.summaryOne": "Reasoning: 1 step",
    "action.question": "The question, searched",
    "action.searching": "Searching the sources for the question…",
    "kind.generated": "Generated answer, supported by the sources below",
    "confidence.generated": "The verifier puts the chance that this answer is right at {percent} %.",
    "confidence.other": "The model's best answer (“{answer}”) is right with a chance of only {percent} %, so the sources are quoted instead.",
    "kind.quoted": "Quoted from the sources below (no generated answer was sure enough)",
    "kind.written": "Written from the sources: every sentence was checked against the passage it cites",
    "kind.unsourced": "The model's own answer: no source searched states it",
    "action.rewrite": "Rewrite",
    "action.decompose": "Decomposition",
    "action.disambiguate": "Disambiguation",
    "action.answer": "Answer",
    "sources.title": "Sources",
    "source.page": "p. {n}",
    "source.pages": "pp. {a}–{b}",
    "source.memory": "Memory",
    "memory.stored": "Remembered: {text}",
    "timing.label": "Time: {text}",
    "timing.request_seconds": "total",
    "timing.decode_seconds": "decoding",
    "timing.search_seconds": "search",
    "retriever.corpus": "Corpus",
    "retriever.documents": "My documents",
    "retriever.memories": "Memories",
    "retriever.documents+memories": "Documents + memories",
    "strategy.vote": "Vote",
    "strategy.support": "Evidence support",
    "strategy.ensemble": "Ensemble",
    "strategy.confidence": "Confidence",
    "strategy.ppl": "Perplexity",
    "strategy.ppl_path": "Path perplexity",
    "error.network": "The server could not be reached. Check your connection and try again.",
    "error.http": "The server answered with an error ({status}).",
    "error.stream": "The answer stopped before it was complete. Please try again.",
    "error.config": "The page settings could not be loaded: {message}",
    "error.conversation": "This conversation could not be opened: {message}",
    "error.generic": "Something went wrong: {message}",
    "you": "You",
    "assistant": "Assistant",
  },
  pt: {
    "app.title": "Chat RQ-RAG",
    "app.tagline": "Respostas que refinam a pergunta, pesquisam e citam as fontes",
    "nav.new": "Nova conversa",
    "nav.chat": "Conversa",
    "nav.review": "Revisão da literatura",
    "source.open": "Abrir a fonte {n}: {name}",
    "nav.history": "Conversas",
    "nav.noConversations": "Nenhuma conversa ainda.",
    "nav.turns": "{n} perguntas",
    "docs.title": "Documentos",
    "docs.upload": "Enviar",
    "docs.choose": "Escolher arquivo",
    "docs.noFile": "Nenhum arquivo",
    "docs.chooseFile": "Escolha antes um arquivo PDF, TXT, MD, HTML ou DOCX.",
    "docs.empty": "Nenhum documento ainda.",
    "docs.delete": "Excluir",
    "docs.shared": "compartilhado",
    "docs.sharedTitle": "Biblioteca compartilhada: todos pesquisam nela, só um administrador a altera",
    "docs.pages": "{n} páginas",
    "docs.chunks": "{n} trechos",
    "docs.sending": "Enviando {name}…",
    "docs.queued": "{name}: aguardando na fila…",
    "docs.reading": "{name}: lendo páginas {done}/{total}…",
    "docs.embedding": "{name}: indexando trechos {done}/{total}…",
    "docs.searchable": "{name}: já pesquisável por palavras; indexando o sentido dos trechos {done}/{total}…",
    "docs.working": "{name}: processando…",
    "docs.done": "{name} já pode ser pesquisado.",
    "docs.duplicate": "{name} já está na biblioteca.",
    "docs.failed": "Não foi possível adicionar {name}: {message}",
    "mem.title": "Memórias",
    "mem.empty": "Nada guardado ainda.",
    "mem.delete": "Esquecer",
    "settings.title": "Configurações",
    "settings.apiKey": "Chave de API (opcional)",
    "key.title": "Chave de acesso",
    "key.help": "Peça a chave ao administrador do servidor (rqrag users add).",
    "key.submit": "Entrar",
    "key.empty": "Cole a sua chave primeiro.",
    "key.wrong": "Esta chave não foi aceita. Confira e tente de novo.",
    "key.failed": "Não foi possível conferir a chave: {message}",
    "user.admin": "admin",
    "user.signOut": "Sair",
    "user.signOutTitle": "Esquecer a chave guardada neste navegador",
    "settings.language": "Idioma",
    "controls.depth": "Profundidade",
    "controls.strategy": "Estratégia",
    "controls.retriever": "Pesquisar em",
    "input.placeholder": "Faça uma pergunta… (Enter envia, Shift+Enter quebra a linha)",
    "input.send": "Enviar",
    "empty.title": "Pergunte o que quiser",
    "empty.body":
      "O assistente reescreve, divide ou esclarece a sua pergunta quando ajuda, pesquisa e responde com as fontes que leu.",
    "status.searching": "Pesquisando…",
    "status.refining": "Refinando a pergunta…",
    "status.answering": "Escrevendo a resposta…",
    "status.writing": "Lendo as fontes e escrevendo a resposta…",
    "traj.summary": "Raciocínio: {n} passos",
    "traj.summaryOne": "Raciocínio: 1 passo",
    "action.question": "A pergunta, pesquisada",
    "action.searching": "Pesquisando a pergunta nas fontes…",
    "kind.generated": "Resposta gerada, apoiada nas fontes abaixo",
    "confidence.generated": "O verificador estima em {percent} % a chance de esta resposta estar certa.",
    "confidence.other": "A melhor resposta do modelo (“{answer}”) tem só {percent} % de chance de estar certa; por isso citamos as fontes.",
    "kind.quoted": "Citação das fontes abaixo (nenhuma resposta gerada foi segura o bastante)",
    "kind.written": "Escrita a partir das fontes: cada frase foi conferida com o trecho que cita",
    "kind.unsourced": "Resposta do próprio modelo: nenhuma fonte consultada a confirma",
    "action.rewrite": "Reescrita",
    "action.decompose": "Decomposição",
    "action.disambiguate": "Desambiguação",
    "action.answer": "Resposta",
    "sources.title": "Fontes",
    "source.page": "p. {n}",
    "source.pages": "pp. {a}–{b}",
    "source.memory": "Memória",
    "memory.stored": "Memória guardada: {text}",
    "timing.label": "Tempo: {text}",
    "timing.request_seconds": "total",
    "timing.decode_seconds": "decodificação",
    "timing.search_seconds": "busca",
    "retriever.corpus": "Corpus",
    "retriever.documents": "Meus documentos",
    "retriever.memories": "Memórias",
    "retriever.documents+memories": "Documentos + memórias",
    "strategy.vote": "Votação",
    "strategy.support": "Apoio na evidência",
    "strategy.ensemble": "Conjunto",
    "strategy.confidence": "Confiança",
    "strategy.ppl": "Perplexidade",
    "strategy.ppl_path": "Perplexidade do caminho",
    "error.network": "Não foi possível contatar o servidor. Verifique a conexão e tente de novo.",
    "error.http": "O servidor respondeu com um erro ({status}).",
    "error.stream": "A resposta foi interrompida antes do fim. Tente de novo.",
    "error.config": "Não foi possível carregar as configurações da página: {message}",
    "error.conversation": "Não foi possível abrir esta conversa: {message}",
    "error.generic": "Algo deu errado: {message}",
    "you": "Você",
    "assistant": "Assistente",
  },
};

/** Add a module's own strings (review_strings.js) to the tables; the page's own win on a clash. */
export function addStrings(tables) {
  for (const [code, strings] of Object.entries(tables)) STRINGS[code] = { ...strings, ...STRINGS[code] };
}

export const LANGUAGES = [
  { code: "pt", label: "Português (BR)" },
  { code: "en", label: "English" },
];

const STORAGE_KEY = "rqrag-language";
let current = pickLanguage();

function pickLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved && STRINGS[saved]) return saved;
  const browser = (navigator.language || "en").toLowerCase();
  return browser.startsWith("pt") ? "pt" : "en";
}

/** The current language code: "pt" or "en". */
export function language() {
  return current;
}

/** The BCP 47 tag for dates and numbers in the current language. */
export function locale() {
  return current === "pt" ? "pt-BR" : "en";
}

/** Switch language, remember the choice, and rewrite every tagged element of the page. */
export function setLanguage(code) {
  if (!STRINGS[code]) return;
  current = code;
  localStorage.setItem(STORAGE_KEY, code);
  applyLanguage();
}

/** The string `key` in the current language with {name} placeholders filled; `fallback` if unknown. */
export function t(key, vars = {}, fallback = undefined) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? fallback ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** Whether `key` has a translation (used for server-given names such as strategies). */
export function has(key) {
  return key in STRINGS[current] || key in STRINGS.en;
}

export function applyLanguage(root = document) {
  document.documentElement.lang = locale();
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  document.title = t("app.title");
}
