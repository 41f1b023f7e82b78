// What the endpoint form offers: GPU pools and CPU flavours with live availability, templates,
// registry credentials and network volumes of the account.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';

interface Gpu {
  id: string;
  name: string;
  pool: string | null;
  availability?: string;
}
interface Cpu {
  id: string;
  name: string;
  group: string;
  availability?: string;
}
export interface Pool {
  id: string;
  gpus: string[];
  availability: string;
}
export interface Choices {
  pools: Pool[];
  cpus: Cpu[];
  templates: { id: string; name: string }[];
  registries: { id: string; name: string }[];
  volumes: { id: string; name: string; dataCenterId: string; size: number }[];
  dataCenters: { id: string; name: string; region: string }[];
}

const RANK = ['NONE', 'LOW', 'MEDIUM', 'HIGH'];

/** Availability asked first; a deployment that refuses the query still lists the catalog. */
const withAvailability = async <T>(path: string, key: string): Promise<T[]> => {
  const pick = (answer: Record<string, T[]>) => answer[key] ?? [];
  return api<Record<string, T[]>>('GET', `${path}?include=AVAILABILITY&product=SERVERLESS`)
    .then(pick)
    .catch(() => api<Record<string, T[]>>('GET', path).then(pick));
};

export function useChoices(): Choices {
  const [choices, setChoices] = useState<Choices>({ pools: [], cpus: [], templates: [], registries: [], volumes: [], dataCenters: [] });
  useEffect(() => {
    const quiet = <T>(p: Promise<T>, fallback: T) => p.catch(() => fallback);
    void Promise.all([
      quiet(withAvailability<Gpu>('/v2/catalog/gpus', 'gpus'), []),
      quiet(withAvailability<Cpu>('/v2/catalog/cpus', 'cpus'), []),
      quiet(api<{ templates: Choices['templates'] }>('GET', '/v2/templates'), { templates: [] }),
      quiet(api<{ registries: Choices['registries'] }>('GET', '/v2/registries'), { registries: [] }),
      quiet(api<{ networkVolumes: Choices['volumes'] }>('GET', '/v2/network-volumes'), { networkVolumes: [] }),
      quiet(api<{ dataCenters: Choices['dataCenters'] }>('GET', '/v2/catalog/datacenters'), { dataCenters: [] }),
    ]).then(([gpus, cpus, t, r, v, d]) => {
      const pools = new Map<string, Pool>();
      for (const gpu of gpus) {
        // A GPU in no pool cannot be chosen by pool.
        if (gpu.pool === null) continue;
        const pool = pools.get(gpu.pool) ?? { id: gpu.pool, gpus: [], availability: 'NONE' };
        pool.gpus.push(gpu.name);
        const level = gpu.availability ?? 'NONE';
        if (RANK.indexOf(level) > RANK.indexOf(pool.availability)) pool.availability = level;
        pools.set(gpu.pool, pool);
      }
      setChoices({
        pools: [...pools.values()],
        cpus,
        templates: t.templates,
        registries: r.registries,
        volumes: v.networkVolumes,
        dataCenters: d.dataCenters,
      });
    });
  }, []);
  return choices;
}
