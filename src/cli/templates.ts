// `gantry templates list|get|create|delete`: reusable container settings over /v2/templates.
import type { Command } from 'commander';
import { addContainerFlags, applyContainerFlags, type ContainerFlags } from './remote/container-flags.js';
import { integer, setIfGiven } from './remote/flag-values.js';
import { collectionCommand, createVerb, deleteVerb, getVerb, listVerb, type BodyFlags, type Collection } from './remote/resource.js';

interface TemplateRow {
  id: string;
  name: string;
  image: string | null;
  serverless: boolean;
  public: boolean;
  category: string;
}

const TEMPLATES: Collection<TemplateRow> = {
  name: 'templates',
  noun: 'template',
  path: '/v2/templates',
  listKey: 'templates',
  columns: [
    { header: 'ID', value: (t) => t.id },
    { header: 'NAME', value: (t) => t.name },
    { header: 'IMAGE', value: (t) => t.image ?? '-' },
    { header: 'SERVERLESS', value: (t) => (t.serverless ? 'yes' : 'no') },
    { header: 'PUBLIC', value: (t) => (t.public ? 'yes' : 'no') },
    { header: 'CATEGORY', value: (t) => t.category },
  ],
};

interface TemplateFlags extends ContainerFlags {
  name?: string;
  disk?: number;
  serverless: boolean;
  public?: boolean;
}

const CREATE: BodyFlags<TemplateFlags> = {
  add: (command) =>
    addContainerFlags(command.option('--name <name>', 'the template name, unique in your account'))
      .option('--disk <gb>', 'container disk in GB', integer(1))
      .option('--public', 'let other accounts read and use it')
      // Endpoints can only be made from serverless templates, which is what this CLI is for.
      .option('--no-serverless', 'a pod template, which endpoints cannot use'),
  build(flags, base) {
    const body = { ...base };
    setIfGiven(body, 'name', flags.name);
    applyContainerFlags(flags, body);
    setIfGiven(body, 'disk', flags.disk);
    setIfGiven(body, 'public', flags.public);
    if (!flags.serverless) body.serverless = false;
    else body.serverless ??= true;
    return body;
  },
};

export function templatesCommand(): Command {
  return collectionCommand('templates', 'list, show, create and delete templates (container settings endpoints start from)', [
    listVerb(TEMPLATES),
    getVerb(TEMPLATES),
    createVerb(TEMPLATES, CREATE),
    deleteVerb(TEMPLATES),
  ]);
}
