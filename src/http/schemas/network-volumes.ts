// Schemas of the network volume resource: create and update bodies, and the volume as answered.
import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.js';
import { VOLUME_SIZE_GB, VOLUME_TYPES } from '../../domain/network-volume.js';

const VolumeType = StringEnum(VOLUME_TYPES, { description: 'Storage tier; set at creation, immutable' });
const Size = Type.Integer({ minimum: VOLUME_SIZE_GB.min, maximum: VOLUME_SIZE_GB.max, description: 'GB' });
const Name = Type.String({
  minLength: 1,
  maxLength: 191,
  pattern: '\\S',
  'x-pattern-message': 'must not be blank',
  description: 'Not required to be unique; at most 191 characters, as endpoint names',
});

export const CreateNetworkVolumeBody = Type.Object(
  {
    name: Name,
    size: Size,
    dataCenter: Type.String({
      minLength: 1,
      description: 'Where the volume lives; immutable. Only data centers whose catalog entry lists networkVolumeTypes offer volumes',
    }),
    type: Type.Optional(VolumeType),
  },
  { additionalProperties: false, $id: 'CreateNetworkVolumeRequest' },
);

export const UpdateNetworkVolumeBody = Type.Object(
  {
    name: Type.Optional(Name),
    size: Type.Optional(
      Type.Integer({
        minimum: VOLUME_SIZE_GB.min,
        maximum: VOLUME_SIZE_GB.max,
        description: 'GB; at least the current size: a volume cannot shrink',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, $id: 'UpdateNetworkVolumeRequest' },
);

export const NetworkVolumeResponse = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    size: Type.Integer({ description: 'GB' }),
    dataCenter: Type.String(),
    type: VolumeType,
    usage: Type.Optional(
      Type.Object(
        {
          usedBytes: Type.Integer({ description: 'Bytes the files on the volume take, as counted now' }),
          sizeBytes: Type.Integer({ description: 'The size in bytes: reported against, not enforced' }),
          complete: Type.Boolean({
            description: 'False when counting stopped at its time or entry bound: usedBytes is then a lower bound',
          }),
        },
        { description: 'On a single volume only. Gantry does not enforce a volume size on the file system; it reports use against it' },
      ),
    ),
  },
  { $id: 'NetworkVolume' },
);

export const ListNetworkVolumesResponse = Type.Object({ networkVolumes: Type.Array(NetworkVolumeResponse) });

export const NetworkVolumeIdParams = Type.Object({ id: Type.String() });
