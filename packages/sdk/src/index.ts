export { cleanKeywords, createClient, MonetizeClient, VERSION } from './client';
export type { AdOptions, ClientOptions, ConsentOptions, Placement, RenderOptions } from './client';
export type { Ad, Consent, Evidence, EventType, Format, Listener, MonetizeEvent, Purpose, ViewabilityRule } from './types';
export { ViewabilityClock, ruleFor } from './viewability';
