/**
 * Every route's answer contract, by route name: read by the OpenAPI document, the answer check
 * (infra/answer-check.ts) and the docs. No handler imports it, so no function's bundle carries
 * the contracts (the openapi function's excepted).
 */
import { contract } from '#shared/http/contract.ts';

export const contracts = contract;
