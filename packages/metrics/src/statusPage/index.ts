export { ExplainQueryError } from './ExplainQueryError.js';
export { parseExplainQuery, type ExplainQuery } from './parseExplainQuery.js';
export type { StatusPageSource } from './StatusPageSource.js';
export { controllerStatusPage, type InformerState, type StatusPageInformer, type StatusPageStatus } from './controllerStatusPage.js';
