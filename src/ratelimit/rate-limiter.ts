/** @module PLACEHOLDER (replaced by the access/rate-limit work). */
import { DurableObject } from 'cloudflare:workers';

export class RateLimiter extends DurableObject<Env> {}
