// Schemas of the template resource: create and update bodies, and the response.
import { Type } from '@sinclair/typebox';
import {
  containerRequestProperties,
  containerResponseProperties,
  CudaVersion,
  optionalAll,
  PersistentMount,
  StringEnum,
} from './common.js';

const TEMPLATE_CATEGORIES = ['CPU', 'NVIDIA', 'AMD'] as const;

const Mounts = Type.Object(
  { persistent: Type.Optional(PersistentMount) },
  { additionalProperties: false, description: 'On update, {} (or no persistent) leaves the mount as it is' },
);

const PUBLIC_DESCRIPTION = 'Whether other accounts may read and use the template';
const SERVERLESS_DESCRIPTION = 'Only serverless templates can configure an endpoint';

const templateRequestProperties = {
  name: Type.String({ minLength: 1, description: 'Unique within the account' }),
  ...containerRequestProperties,
  allowedCudaVersions: Type.Array(CudaVersion, {
    uniqueItems: true,
    description: 'Seeds gpu.allowedCudaVersions of endpoints created from the template; [] means any',
  }),
  mounts: Mounts,
  public: Type.Boolean({ description: PUBLIC_DESCRIPTION }),
  serverless: Type.Boolean({ description: SERVERLESS_DESCRIPTION }),
  startJupyter: Type.Boolean(),
  startSsh: Type.Boolean(),
};

export const CreateTemplateBody = Type.Object(
  {
    ...optionalAll(templateRequestProperties),
    name: templateRequestProperties.name,
    image: templateRequestProperties.image,
    category: Type.Optional(StringEnum(TEMPLATE_CATEGORIES, { default: 'NVIDIA' })),
    public: Type.Optional(Type.Boolean({ description: PUBLIC_DESCRIPTION, default: false })),
    serverless: Type.Optional(Type.Boolean({ description: SERVERLESS_DESCRIPTION, default: false })),
    startJupyter: Type.Optional(Type.Boolean({ default: true })),
    startSsh: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false, $id: 'CreateTemplateRequest' },
);

export const UpdateTemplateBody = Type.Object(
  { ...optionalAll(templateRequestProperties), category: Type.Optional(StringEnum(TEMPLATE_CATEGORIES)) },
  { additionalProperties: false, $id: 'UpdateTemplateRequest' },
);

export const TemplateResponse = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    ...containerResponseProperties,
    registry: Type.Union([Type.String(), Type.Null()], { description: 'null unless the caller owns the template' }),
    mounts: Type.Object({
      persistent: Type.Optional(Type.Object({ size: Type.Integer(), path: Type.String() })),
    }),
    serverless: Type.Boolean(),
    public: Type.Boolean(),
    category: StringEnum(TEMPLATE_CATEGORIES),
    startSsh: Type.Boolean(),
    startJupyter: Type.Boolean(),
    allowedCudaVersions: Type.Array(Type.String()),
  },
  { $id: 'Template' },
);

export const ListTemplatesResponse = Type.Object({ templates: Type.Array(TemplateResponse) });

export const TemplateIdParams = Type.Object({ id: Type.String() });
