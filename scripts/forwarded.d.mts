export declare function platformHeaders(headers: Record<string, string | string[] | undefined>, peer: string): void;
