// The parent kind, declared once: its TypeScript type (Parent) and deploy/crd.yaml both come from here.
// After a change, write the CRD again with `npm run crd`; src/kind.test.ts fails until you do.
import { defineKind, type KindObject } from '@protean/kinds';
import Type from 'typebox';

export const PARENT_KIND = defineKind({
  group: '{{group}}',
  kind: '{{kind}}',
  plural: '{{plural}}',
  singular: '{{singular}}',
  versions: [
    {
      name: 'v1alpha1',
      spec: Type.Object({
        message: Type.Optional(Type.String({ description: 'Written into the owned ConfigMap.' })),
      }),
      status: Type.Object({
        parts: Type.Optional(Type.Integer({ description: 'ConfigMaps labelled {{group}}/part-of=<name> in the same namespace.' })),
        conditions: Type.Optional(
          Type.Array(
            // The shape of a Kubernetes condition (metav1.Condition), as @protean/client's Condition has it.
            Type.Object({
              type: Type.String(),
              status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
              reason: Type.String(),
              message: Type.String(),
              lastTransitionTime: Type.String({ format: 'date-time' }),
              observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
            }),
            { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
          ),
        ),
      }),
      printerColumns: [
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'Parts', type: 'integer', jsonPath: '.status.parts' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
});

/** A parent object as the controller reads and writes it. */
export type Parent = KindObject<typeof PARENT_KIND>;
