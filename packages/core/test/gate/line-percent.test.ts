import { describe, expect, it } from 'vitest';
import { linePercent, linePercentHundredths } from '../../src/gate/line-percent.js';

describe('line percent', () => {
  it('floors covered / coverable to hundredths, and is null when nothing is coverable', () => {
    expect(linePercentHundredths(2, 3)).toBe(6666);
    expect(linePercent(2, 3)).toBe(66.66);
    expect(linePercent(3, 3)).toBe(100);
    expect(linePercentHundredths(0, 0)).toBeNull();
    expect(linePercent(0, 0)).toBeNull();
  });
});
