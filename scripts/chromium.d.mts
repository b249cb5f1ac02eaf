export declare const CANDIDATES: string[];
export declare function chromiumPath(): string | null;
