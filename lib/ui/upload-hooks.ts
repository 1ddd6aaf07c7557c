// React Query hook for file uploads. Only import from client components.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { invalidateAfterPublish } from "./hooks";
import { uploadDocument, type UploadInput } from "./upload";

export function useUpload() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: UploadInput) => uploadDocument(input),
    onSuccess: (_data, input) => {
      void invalidateAfterPublish(qc, input.tenant, input.key);
    },
  });
}
