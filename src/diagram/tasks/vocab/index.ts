// Every domain's vocabulary. Adding a domain is adding a file and a line here.
import type { DomainVocab } from './types.ts';
import { software } from './software.ts';
import { dataMl } from './data-ml.ts';
import { business } from './business.ts';
import { science } from './science.ts';
import { everyday } from './everyday.ts';
import { education } from './education.ts';
import { operations } from './operations.ts';

export const DOMAINS: readonly DomainVocab[] = [software, dataMl, business, science, everyday, education, operations];
