export { CONTEXT_LIMITS, cleanKeywords, createClient, MonetizeClient, trimContext, VERSION } from './client';
export type { AdOptions, ClientOptions, ConsentOptions, Placement, RenderOptions } from './client';
export type { Ad, Consent, ContextMessage, Evidence, EventType, Format, Listener, MonetizeEvent, Purpose, ViewabilityRule } from './types';
export { ViewabilityClock, ruleFor } from './viewability';
export { findAd } from './server-ad';
