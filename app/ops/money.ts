import { micro, microToUsd } from '@/lib/platform/kit/micro';
import { formatUsd } from '@/lib/platform/kit/format';

/** Micro-dollars as the operator reads them ("$1,851.55"): rounded once, here. */
export const usd = (amount: number): string => formatUsd(microToUsd(micro(amount)));
